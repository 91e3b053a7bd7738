/// A complete HTTP response. The server adds `Content-Length`, `Date`, `Connection` and
/// `X-Request-Id`; a response to `HEAD` keeps its headers and loses its body on the wire.
public struct HTTPResponse: Sendable {
    public var status: HTTPStatus
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// What the request came to in the application's words (`invalid_code`), for logs, metrics
    /// and failure limits; never sent.
    public var outcome: String?

    public init(status: HTTPStatus = .ok, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A response with a UTF-8 text body and the given content type.
    public init(status: HTTPStatus = .ok, contentType: String, body: String, headers: HTTPHeaders = HTTPHeaders()) {
        self.status = status
        self.headers = headers
        self.headers.set("Content-Type", contentType)
        self.body = Array(body.utf8)
    }
}
