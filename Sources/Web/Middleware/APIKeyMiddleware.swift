import Crypto
import HTTPCore
import HTTPRouting

/// The app's `X-Api-Key` on `/api/v1/*`: one of `api_keys.public`. With no key configured
/// (demo mode) the check is off, and `tollgate config check` says so.
struct APIKeyMiddleware: Middleware {
    let keys: [[UInt8]]

    init(publicKeys: [String]) { keys = publicKeys.map { Array($0.utf8) } }

    func handle(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        guard !keys.isEmpty else { return try await next(request, context) }
        guard let sent = request.headers["X-Api-Key"], !sent.isEmpty else {
            throw APIError.unauthorized("Send the app's public key in X-Api-Key.")
        }
        guard KeyList.contains(keys, Array(sent.utf8)) else { throw APIError.unauthorized("X-Api-Key is not a key of this service.") }
        return try await next(request, context)
    }
}

/// Constant-time membership for configured keys.
enum KeyList {
    /// Compares against every key so the time taken does not say which one nearly matched.
    static func contains(_ keys: [[UInt8]], _ candidate: [UInt8]) -> Bool {
        var matched = false
        for key in keys where ConstantTime.equals(key, candidate) { matched = true }
        return matched
    }
}
