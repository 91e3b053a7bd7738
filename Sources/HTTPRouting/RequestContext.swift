import HTTPCore
import JSON
import Logging

/// Per-request information passed beside the request to every handler: what the server knows
/// (`RequestInfo`) plus what routing and middleware add (path parameters, the route, who a
/// middleware authenticated).
public struct RequestContext: Sendable {
    /// The request id: the client's `X-Request-Id` when it was sane, else generated.
    public var requestId: String
    /// A logger that already carries `request_id`.
    public var logger: Logger
    /// The peer's address as `ip` (IPv4 dotted or IPv6 text), when known.
    public var remoteAddress: String?
    /// Path parameters filled in by the router (`/redeem/{code}` → `["code": ...]`).
    public var parameters: [String: String]
    /// The route pattern that matched (`/redeem/{code}`), for logs and metrics.
    public var route: String?
    /// The largest body the server accepted for this request.
    public var maxBodyBytes: Int
    /// Who a middleware authenticated the request as (an operator's audit name), if any.
    public var authenticatedAs: String?
    /// The client's address once resolved (trusted proxies applied), if it was: by the server for
    /// a trusted proxy's request (`RequestInfo.forwardedClient`), else by the rate limit middleware.
    public var clientAddress: String?
    /// The token of `Authorization: Bearer <token>` (RFC 6750) once a middleware read it, if the
    /// request carries one. Not yet checked: whoever acts on it checks it.
    public var bearerToken: String?
    /// The body as the strict JSON check read it, when it was sent as JSON: routes decode this
    /// value and never read the bytes again.
    public var jsonBody: JSONValue?

    public init(
        requestId: String, logger: Logger, remoteAddress: String? = nil,
        parameters: [String: String] = [:], route: String? = nil, maxBodyBytes: Int = 1 << 20
    ) {
        self.requestId = requestId
        self.logger = logger
        self.remoteAddress = remoteAddress
        self.parameters = parameters
        self.route = route
        self.maxBodyBytes = maxBodyBytes
    }

    /// The context of a request the server read, once routed. The client the server resolved
    /// for a trusted proxy's request (its per-client cap) is the client's address here too.
    public init(_ info: RequestInfo, parameters: [String: String] = [:], route: String? = nil) {
        self.init(
            requestId: info.requestId, logger: info.logger, remoteAddress: info.remoteAddress, parameters: parameters, route: route,
            maxBodyBytes: info.maxBodyBytes)
        clientAddress = info.forwardedClient
    }
}
