import Foundation
import Domain
import HTTPServer
import Storage

/// Who an app request comes from: the public key check, and the signed-in account from an
/// `Authorization: Bearer <access_token>` when one is sent.
struct AppAuthentication: Sendable {
    let apiKeys: APIKeyCheck

    /// The bearer token, if the request carries one.
    /// - Throws: `APIError.unauthorized` for a malformed `Authorization` header.
    static func bearerToken(_ request: HTTPRequest) throws -> String? {
        guard let header = request.headers["Authorization"] else { return nil }
        guard header.count > 7, header.prefix(7).lowercased() == "bearer " else {
            throw APIError.unauthorized("Authorization must be Bearer <access_token>.")
        }
        return String(header.dropFirst(7))
    }

    /// The account a bearer token signs in, inside a transaction.
    /// - Throws: `APIError.unauthorized` for an unknown, expired or revoked token.
    static func account(for token: String?, on connection: Connection, now: Date) throws -> String? {
        guard let token else { return nil }
        guard let accountID = try SessionRepository.authenticate(accessToken: token, on: connection, now: now) else {
            throw APIError.unauthorized("The access token is not valid (expired or signed out): sign in again.")
        }
        return accountID
    }
}
