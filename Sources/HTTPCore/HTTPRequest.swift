/// A complete HTTP/1.1 request as read from a connection: head and fully read body.
public struct HTTPRequest: Sendable {
    public var method: HTTPMethod
    /// The request-target exactly as sent, e.g. `/redeem/AB12?x=1`.
    public var target: String
    /// The target's path before any `?`, still percent-encoded.
    public var path: String
    /// The raw query after `?`, or nil when there is none.
    public var query: String?
    /// HTTP minor version: 0 for HTTP/1.0, 1 for HTTP/1.1.
    public var minorVersion: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(
        method: HTTPMethod, target: String, minorVersion: Int = 1,
        headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []
    ) {
        self.method = method
        self.target = target
        self.minorVersion = minorVersion
        self.headers = headers
        self.body = body
        // A byte search: `?` always starts a character, and comparing bytes is much cheaper
        // than comparing `Character`s (this runs for every request).
        if let mark = target.utf8.firstIndex(of: UInt8(ascii: "?")) {
            path = String(target[..<mark])
            query = String(target[target.utf8.index(after: mark)...])
        } else {
            path = target
            query = nil
        }
    }
}
