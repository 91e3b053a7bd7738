import Domain
import Foundation
import Storage

/// Apps sign in by mail (API.md "Who may act for an account", Addresses):
/// `POST /api/v1/auth/email` mails the address a one-time `login_url` (`/auth/login?token=`, bound
/// to the PKCE challenge sent with the request) and a 6-digit code; `POST /auth/token` with
/// `grant_type=email_code` exchanges the code for tokens. Either proves the address, for the
/// account it opens (the web sign-in's rule, `WebSignIn.account(for:)`), which confirms it.
/// At most one sign-in mail per address per resend interval (a new one ends the previous
/// code), and at most `SignInCodeRepository.maxWrongPerDay` wrong codes per address per day.
public struct MailSignIn: Sendable {
    let database: Database
    let authMail: AuthMail
    let mail: MailQueue
    var secrets: DomainSecrets { authMail.secrets }

    public init(database: Database, authMail: AuthMail, mail: MailQueue) {
        self.database = database
        self.authMail = authMail
        self.mail = mail
    }

    /// Mails a sign-in link and code to `email` when it leads to an account; the caller answers
    /// the same (`202`) whatever happened.
    /// - Throws: `StorageError`, `CryptoError`, `MailError`.
    public func request(email: String, codeChallenge: String?, now: Date) async throws {
        let email = email.lowercased()
        let (authMail, secrets) = (self.authMail, self.secrets)
        let queued = try await database.write { connection -> Bool in
            guard let accountID = try WebSignIn.account(for: email, secrets: secrets, on: connection, now: now) else { return false }
            return try authMail.queueSignIn(accountID: accountID, email: email, link: .app(codeChallenge: codeChallenge), on: connection)
        }
        if queued { mail.queued() }
    }

    /// Exchanges the mailed code for tokens of the account the mail was for, whose address the
    /// code proves.
    /// - Throws: `UseCaseError` `invalid_grant` (wrong, expired, used or out of tries), `StorageError`, `CryptoError`.
    public func exchange(email: String, code: String, now: Date) async throws -> SessionRepository.Tokens {
        let email = email.lowercased()
        let secrets = self.secrets
        let outcome = try await database.write { connection -> SessionRepository.Tokens? in
            switch try SignInCodeRepository.check(email: email, typed: code, secrets: secrets, on: connection, now: now) {
            case .noLiveCode, .wrong:
                return nil
            case .accepted(let accountID):
                guard try AddressProof.proved(email, accountID: accountID, on: connection, now: now) else { return nil }
                return try SessionRepository.issue(accountID: accountID, deviceID: nil, on: connection, now: now)
            }
        }
        guard let outcome else {
            throw SignIn.invalidGrant("The code is wrong, expired or used up. Ask for a new mail.")
        }
        return outcome
    }
}
