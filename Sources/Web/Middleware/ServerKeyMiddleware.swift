import HTTPCore
import HTTPRouting

/// A partner backend's `X-API-KEY`: one of `api_keys.server`, compared in constant time. With no
/// server key configured every call is refused (server-to-server writes are never open).
struct ServerKeyMiddleware: Middleware {
    let keys: [[UInt8]]

    init(serverKeys: [String]) { keys = serverKeys.map { Array($0.utf8) } }

    func handle(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        guard !keys.isEmpty else {
            throw APIError.unauthorized("No server keys are configured on this server (api_keys.server).")
        }
        guard let sent = request.headers["X-API-KEY"], !sent.isEmpty else {
            throw APIError.unauthorized("Send a server key in X-API-KEY.")
        }
        guard KeyList.contains(keys, Array(sent.utf8)) else { throw APIError.unauthorized("X-API-KEY is not a server key of this service.") }
        return try await next(request, context)
    }
}
