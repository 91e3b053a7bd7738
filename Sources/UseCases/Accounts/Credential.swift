import Domain
import Foundation
import Storage

/// How a caller says who is signed in: the app with `Authorization: Bearer <access_token>`, or a
/// browser with the web session cookie (`tollgate_session`). Checked inside the caller's
/// transaction, so the answer holds for everything that transaction does.
public enum Credential: Sendable {
    case bearer(String?)
    case webSession(String?)

    /// The signed-in account.
    /// - Throws: `UseCaseError.unauthorized` when nothing was sent or it does not sign anyone in.
    public func requireAccount(on connection: Connection, now: Date) throws -> String {
        switch self {
        case .bearer(let token):
            return try BearerSession.require(token, on: connection, now: now)
        case .webSession(let cookie):
            guard let cookie, let session = try WebSessionRepository.find(cookie, on: connection, now: now) else {
                throw UseCaseError.unauthorized("Sign in first: your session has ended.")
            }
            return session.accountID
        }
    }

    /// The account this credential was issued for, whatever its state now (signed out, deleted),
    /// when its secret matches; nil otherwise.
    func issuedAccount(on connection: Connection) throws -> String? {
        switch self {
        case .bearer(let token): try token.flatMap { try SessionRepository.issuedAccount(accessToken: $0, on: connection) }
        case .webSession(let cookie): try cookie.flatMap { try WebSessionRepository.issuedAccount($0, on: connection) }
        }
    }
}
