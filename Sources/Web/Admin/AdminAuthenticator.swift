import Foundation
import Crypto
import HTTPServer

/// Operators' `Authorization: Bearer <admin token>` on `/admin/v1/*`: the SHA-256 of the
/// token must be one of `admin.tokens_sha256` (the tokens themselves are never stored).
struct AdminAuthenticator: Sendable {
    let hashes: [[UInt8]]

    init(tokenHashes: [String]) {
        hashes = tokenHashes.compactMap { try? Hex.decode($0) }
    }

    /// The actor name for the audit log (`admin:<first 8 hex of the token hash>`).
    /// - Throws: `APIError.unauthorized` for a missing or wrong token (also when none is configured).
    func authenticate(_ request: HTTPRequest) throws -> String {
        guard let header = request.headers["Authorization"], header.count > 7,
            header.prefix(7).lowercased() == "bearer "
        else {
            throw APIError.unauthorized("Send an admin token as Authorization: Bearer <token>.")
        }
        let token = header.dropFirst(7).trimmingCharacters(in: .whitespaces)
        guard !token.isEmpty, let digest = try? SHA256.hash(Array(token.utf8)) else {
            throw APIError.unauthorized("Send an admin token as Authorization: Bearer <token>.")
        }
        var matched = false
        for hash in hashes where ConstantTime.equals(hash, digest) { matched = true }
        guard matched else { throw APIError.unauthorized("The admin token is not valid.") }
        return "admin:" + Hex.encode(digest).prefix(8)
    }
}
