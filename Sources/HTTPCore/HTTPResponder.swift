import Logging

/// What the server calls for every request it has read. The application implements it
/// (routing, error mapping, logging); the server only speaks HTTP and knows no routes.
///
/// Per request the server calls `plan` once, when the head is read (the route's body limit, and
/// whatever the responder wants back with the request), then `respond` with that plan once the
/// body is read. A router is therefore matched once per request.
public protocol HTTPResponder: Sendable {
    /// The plan for a request with this method and path.
    func plan(method: HTTPMethod, path: String) -> RoutePlan

    /// Produces the response for a fully read request. Never throws: errors become responses.
    func respond(to request: HTTPRequest, plan: RoutePlan, info: RequestInfo) async -> HTTPResponse

    /// The response sent when the server itself rejects a request (malformed, too large,
    /// too slow). The server closes the connection after sending it.
    func protocolErrorResponse(status: HTTPStatus, message: String, info: RequestInfo) -> HTTPResponse
}

extension HTTPResponder {
    public func plan(method: HTTPMethod, path: String) -> RoutePlan { RoutePlan() }

    public func protocolErrorResponse(status: HTTPStatus, message: String, info: RequestInfo) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "text/plain; charset=utf-8", body: message + "\n")
    }
}

/// What a responder decided from a request's head: the body limit and, for its own use when the
/// request comes back, a route number and the path parameters. Plain values: no allocation for
/// routes without parameters.
public struct RoutePlan: Sendable {
    /// The largest body accepted, or nil for the server's configured default.
    public var maxBodyBytes: Int?
    /// The responder's route number, or nil when no route takes the request.
    public var route: Int?
    /// Path parameters the responder found.
    public var parameters: [String: String]

    public init(maxBodyBytes: Int? = nil, route: Int? = nil, parameters: [String: String] = [:]) {
        self.maxBodyBytes = maxBodyBytes
        self.route = route
        self.parameters = parameters
    }
}

/// What the server knows about a request besides its bytes.
public struct RequestInfo: Sendable {
    /// The request id: the client's `X-Request-Id` when it was sane, else generated.
    public var requestId: String
    /// A logger that already carries `request_id`.
    public var logger: Logger
    /// The peer's address as `ip` (IPv4 dotted or IPv6 text), when known.
    public var remoteAddress: String?
    /// The largest body the server accepted for this request.
    public var maxBodyBytes: Int
    /// For a trusted proxy's request, the client it forwards as `ClientAddressPolicy` resolved it
    /// for the per-client cap; nil otherwise. The application takes it rather than resolving again.
    public var forwardedClient: String?

    public init(requestId: String, logger: Logger, remoteAddress: String? = nil, maxBodyBytes: Int = 1 << 20, forwardedClient: String? = nil) {
        self.requestId = requestId
        self.logger = logger
        self.remoteAddress = remoteAddress
        self.maxBodyBytes = maxBodyBytes
        self.forwardedClient = forwardedClient
    }
}
