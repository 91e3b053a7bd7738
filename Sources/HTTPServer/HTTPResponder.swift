/// What the server calls for every request it has read. The application implements it
/// (routing, error mapping, logging); the server only speaks HTTP.
public protocol HTTPResponder: Sendable {
    /// The largest body accepted for a request with this method and path, or nil for the
    /// server's configured default. Called after the head is read, before the body.
    func maxBodyBytes(method: HTTPMethod, path: String) -> Int?

    /// Produces the response for a fully read request. Never throws: errors become responses.
    func respond(to request: HTTPRequest, context: RequestContext) async -> HTTPResponse

    /// The response sent when the server itself rejects a request (malformed, too large,
    /// too slow). The server closes the connection after sending it.
    func protocolErrorResponse(status: HTTPStatus, message: String, context: RequestContext) -> HTTPResponse
}

extension HTTPResponder {
    public func maxBodyBytes(method: HTTPMethod, path: String) -> Int? { nil }

    public func protocolErrorResponse(status: HTTPStatus, message: String, context: RequestContext) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "text/plain; charset=utf-8", body: message + "\n")
    }
}
