/// A parsed and validated request head, before the body is read.
struct HTTPRequestHead: Sendable {
    var method: HTTPMethod
    var target: String
    /// 0 for HTTP/1.0, 1 for HTTP/1.1.
    var minorVersion: Int
    var headers: HTTPHeaders
    /// The declared body length; nil when there is none or the body is chunked.
    var contentLength: Int?
    var isChunked: Bool
    /// Whether the client sent `Expect: 100-continue`.
    var expectsContinue: Bool
    /// Whether the client asked to keep the connection open (RFC 9112 §9.3).
    var keepAlive: Bool
    /// The client's `X-Request-Id`, when it sent one.
    var requestId: String?

    /// Whether a body follows the head.
    var hasBody: Bool { isChunked || (contentLength ?? 0) > 0 }

    /// The path before any `?`.
    var path: String {
        if let mark = target.utf8.firstIndex(of: UInt8(ascii: "?")) {
            return String(target[..<mark])
        }
        return target
    }
}
