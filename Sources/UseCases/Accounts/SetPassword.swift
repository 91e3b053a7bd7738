import Domain
import Foundation
import Storage

/// `/auth/password/reset?token=`: sets a password from an emailed link. Setting it signs the
/// account out everywhere.
public struct SetPassword: Sendable {
    public static let minimumLength = 10
    public static let maximumLength = 200

    let database: Database

    public init(database: Database) { self.database = database }

    /// Whether the link can still be used. Changes nothing.
    /// - Throws: `StorageError`.
    public func check(_ token: String, now: Date) async throws -> AuthTokenRepository.Rejection? {
        let state = try await database.read { try AuthTokenRepository.peek(token, purpose: .passwordReset, on: $0, now: now) }
        if case .rejected(let rejection) = state { return rejection }
        return nil
    }

    /// Sets `password` (already checked for length by the caller's form) with the link.
    /// Returns why the link was refused, or nil on success.
    /// - Throws: `CryptoError` (hashing), `StorageError`.
    public func set(_ password: String, token: String, now: Date) async throws -> AuthTokenRepository.Rejection? {
        if let rejection = try await check(token, now: now) { return rejection }
        let hash = try await PasswordWork.hash(password)
        return try await database.write { connection -> AuthTokenRepository.Rejection? in
            switch try AuthTokenRepository.consume(token, purpose: .passwordReset, on: connection, now: now) {
            case .rejected(let rejection):
                return rejection
            case .valid(let stored):
                try AccountRepository.setPasswordHash(hash, accountID: stored.accountID, on: connection, now: now)
                try SessionRepository.revokeAll(accountID: stored.accountID, on: connection)
                return nil
            }
        }
    }
}
