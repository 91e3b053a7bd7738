import Domain
import Foundation
import Storage

/// Checks an email and password, for the app's sign-in (`SignIn`) and the web's (`WebSignIn`).
/// An account without a password gets a set-password link by email (at most every 10 minutes).
struct PasswordCheck: Sendable {
    /// What the check found.
    enum Outcome: Sendable {
        case verified(accountID: String)
        /// The account has no password yet; a set-password link was mailed.
        case passwordNotSet
        /// Unknown email or wrong password (one answer for both).
        case refused
    }

    let database: Database
    let authMail: AuthMail
    let mail: MailQueue

    /// - Throws: `StorageError`, `CryptoError`.
    func verify(email: String, password: String, now: Date) async throws -> Outcome {
        let email = email.lowercased()
        let account = try await database.read { try AccountRepository.find(email: email, on: $0) }
        guard let account else { return .refused }
        let stored = try await database.read { try AccountRepository.passwordHash(accountID: account.id, on: $0) }
        guard let stored else {
            let authMail = self.authMail
            let queued = try await database.write { connection -> Bool in
                guard try ResendThrottle.claim("set-password:\(account.id)", interval: 600, on: connection, now: now) else { return false }
                try authMail.queueSetPassword(accountID: account.id, email: email, on: connection)
                return true
            }
            if queued { mail.queued() }
            return .passwordNotSet
        }
        guard await PasswordWork.verify(password, against: stored) else { return .refused }
        return .verified(accountID: account.id)
    }
}
