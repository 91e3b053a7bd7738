import Crypto
import HTTPServer

/// The app's `X-Api-Key` on `/api/v1/*`: one of `api_keys.public`. With no key configured
/// (demo mode) the check is off, and `tollgate config check` says so.
struct APIKeyCheck: Sendable {
    let keys: [[UInt8]]

    init(publicKeys: [String]) { keys = publicKeys.map { Array($0.utf8) } }

    var isEnabled: Bool { !keys.isEmpty }

    /// - Throws: `APIError.unauthorized` when the key is missing or unknown.
    func verify(_ request: HTTPRequest) throws {
        guard isEnabled else { return }
        guard let sent = request.headers["X-Api-Key"], !sent.isEmpty else {
            throw APIError.unauthorized("Send the app's public key in X-Api-Key.")
        }
        let candidate = Array(sent.utf8)
        // Compare against every key so the time taken does not say which one nearly matched.
        var matched = false
        for key in keys where ConstantTime.equals(key, candidate) { matched = true }
        guard matched else { throw APIError.unauthorized("X-Api-Key is not a key of this service.") }
    }
}
