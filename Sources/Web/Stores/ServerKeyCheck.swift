import Crypto
import HTTPServer

/// A partner backend's `X-API-KEY`: one of `api_keys.server`, compared in constant time. With no
/// server key configured every call is refused (server-to-server writes are never open).
struct ServerKeyCheck: Sendable {
    let keys: [[UInt8]]

    init(serverKeys: [String]) { keys = serverKeys.map { Array($0.utf8) } }

    /// - Throws: `APIError.unauthorized` when the key is missing, unknown, or none is configured.
    func verify(_ request: HTTPRequest) throws {
        guard !keys.isEmpty else {
            throw APIError.unauthorized("No server keys are configured on this server (api_keys.server).")
        }
        guard let sent = request.headers["X-API-KEY"], !sent.isEmpty else {
            throw APIError.unauthorized("Send a server key in X-API-KEY.")
        }
        let candidate = Array(sent.utf8)
        var matched = false
        // Every key is compared so the time taken does not say which one nearly matched.
        for key in keys where ConstantTime.equals(key, candidate) { matched = true }
        guard matched else { throw APIError.unauthorized("X-API-KEY is not a server key of this service.") }
    }
}
