import Domain
import Foundation
import Storage

/// Checks an email and password, for the app's sign-in (`SignIn`) and the web's (`WebSignIn`).
/// No oracle (API.md "Who may act for an account", Password sign-in): an unknown address, a
/// wrong password and an account without one get the same `refused`, after the same hash work
/// (a decoy hash stands in when there is nothing to check). Only a confirmed address leads to
/// its account. The mails: an address an account requested but has not confirmed gets that
/// account's confirmation link again; a confirmed address of an account without a password
/// gets the set-password link; an unknown one nothing. At most one such password mail per
/// address per resend interval (`AuthMail.Kind.password`).
struct PasswordCheck: Sendable {
    /// What the check found.
    enum Outcome: Sendable {
        case verified(accountID: String)
        /// Unknown email, wrong password or no password (one answer for all).
        case refused
    }

    let database: Database
    let authMail: AuthMail
    let mail: MailQueue
    var hasher: any PasswordHashing = ScryptPasswords()

    /// - Throws: `StorageError`, `CryptoError`.
    func verify(email: String, password: String, now: Date) async throws -> Outcome {
        let email = email.lowercased()
        let (account, stored) = try await database.read { connection -> (Account?, String?) in
            guard let account = try AccountRepository.find(confirmedEmail: email, on: connection) else { return (nil, nil) }
            return (account, try AccountRepository.passwordHash(accountID: account.id, on: connection))
        }
        // The hash work runs on every path, so the time says nothing about the address.
        let matches = await hasher.verify(password, against: stored ?? ScryptPasswords.decoy)
        if let account, stored != nil, matches { return .verified(accountID: account.id) }
        if stored != nil { return .refused }
        let authMail = self.authMail
        let queued = try await database.write { connection -> Bool in
            if let account {
                return try authMail.queueSetPassword(accountID: account.id, email: email, on: connection)
            }
            guard let requester = try AccountRepository.find(requestedEmail: email, on: connection) else { return false }
            return try authMail.queueConfirmation(accountID: requester.id, email: email, as: .password, on: connection)
        }
        if queued { mail.queued() }
        return .refused
    }
}
