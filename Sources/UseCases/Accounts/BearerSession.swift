import Domain
import Foundation
import Storage

/// The account an `Authorization: Bearer <access_token>` signs in, checked inside the caller's
/// transaction so the answer holds for everything that transaction does.
public enum BearerSession {
    /// The signed-in account id, or nil when no token was sent.
    /// - Throws: `UseCaseError.unauthorized` for an unknown, expired or revoked token.
    public static func account(for token: String?, on connection: Connection, now: Date) throws -> String? {
        guard let token else { return nil }
        guard let accountID = try SessionRepository.authenticate(accessToken: token, on: connection, now: now) else {
            throw UseCaseError.unauthorized("The access token is not valid (expired or signed out): sign in again.")
        }
        return accountID
    }

    /// Like `account(for:)` for routes that need a signed-in account.
    /// - Throws: `UseCaseError.unauthorized` when no token was sent or it is not valid.
    public static func require(_ token: String?, on connection: Connection, now: Date) throws -> String {
        guard let accountID = try account(for: token, on: connection, now: now) else {
            throw UseCaseError.unauthorized("Sign in first: send Authorization: Bearer <access_token>.")
        }
        return accountID
    }
}
