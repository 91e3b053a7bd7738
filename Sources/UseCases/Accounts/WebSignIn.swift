import Crypto
import Domain
import Foundation
import Logging
import Storage

/// Signing a buyer in on Tollgate's own pages (API.md "The buyer's web account"): a one-time
/// link by email (10 minutes), the 6-digit code in the same mail (typed on the page the buyer is
/// on, so a buyer inside an app's web view signs in there: `SignInCodeRepository`), or the
/// account's password, any of which opens a cookie session (`WebSessionRepository`). Asking for a link answers the same whether or not the
/// email is known; sign-in mails to one address go out at most once per resend interval.
public struct WebSignIn: Sendable {
    /// A signed-in browser's session.
    public typealias Session = WebSessionRepository.Session
    /// A new session and the cookie value that names it.
    public typealias Issued = WebSessionRepository.Issued
    /// Why a sign-in link was refused.
    public typealias LinkRejection = AuthTokenRepository.Rejection

    /// The outcome of a password sign-in.
    public enum PasswordOutcome: Sendable {
        case signedIn(WebSessionRepository.Issued)
        /// Unknown email, wrong password or no password (one answer for all; `PasswordCheck`).
        case refused
    }

    let database: Database
    let mail: MailQueue
    let links: Links
    let secrets: DomainSecrets
    let passwords: PasswordCheck
    let authMail: AuthMail
    let logger: Logger

    public init(database: Database, mail: MailQueue, links: Links, authMail: AuthMail, secrets: DomainSecrets, logger: Logger) {
        self.database = database
        self.mail = mail
        self.links = links
        self.secrets = secrets
        self.passwords = PasswordCheck(database: database, authMail: authMail, mail: mail)
        self.authMail = authMail
        self.logger = logger
    }

    /// Mails a sign-in link and code to `email` for the account the address opens
    /// (`AddressSignInTarget`, through `account(for:)`), at most one sign-in mail per address per
    /// resend interval (`AuthMail`); the caller answers the same whatever happened.
    /// - Throws: `StorageError`, `CryptoError`, `MailError`.
    public func requestLink(email: String, now: Date) async throws {
        let email = email.lowercased()
        let (authMail, secrets) = (self.authMail, self.secrets)
        let queued = try await database.write { connection -> Bool in
            guard let accountID = try Self.account(for: email, secrets: secrets, on: connection, now: now) else { return false }
            return try authMail.queueSignIn(accountID: accountID, email: email, link: .web, on: connection)
        }
        if queued { mail.queued() }
    }

    /// The account a link for `email` is issued for: the account the address opens
    /// (`AddressSignInTarget`), else an account that holds nothing but the request for the address,
    /// standing for the new one (the target is resolved again when the link or code is used:
    /// `openSession`). Never nil today; optional for callers that stop on none.
    static func account(for email: String, secrets: DomainSecrets, on connection: Connection, now: Date) throws -> String? {
        let target = try AddressSignInTarget.resolve(email: email, on: connection)
        if let accountID = target.accountID { return accountID }
        // The account an earlier mail made for the address (it asks for nothing but it) is reused,
        // so a buyer who asks twice does not leave two accounts behind.
        if let made = try AccountRepository.find(requestedEmail: email, on: connection), made.confirmedEmail == nil,
            try AccountRepository.holdsNothingButAddress(accountID: made.id, on: connection)
        {
            return made.id
        }
        return try AccountRepository.create(email: email, secrets: secrets, on: connection, now: now).id
    }

    /// Whether a sign-in link can still be used; changes nothing (its page is a GET).
    /// - Throws: `StorageError`.
    public func checkLink(_ token: String, now: Date) async throws -> AuthTokenRepository.Rejection? {
        let state = try await database.read { try AuthTokenRepository.peek(token, purpose: .webSignIn, on: $0, now: now) }
        if case .rejected(let rejection) = state { return rejection }
        return nil
    }

    /// Uses a sign-in link: a new session for its account, whose address the link has just
    /// proved (confirmed unless another account confirmed it first).
    /// - Throws: `StorageError`, `CryptoError`.
    public func signIn(link token: String, now: Date) async throws -> AuthTokenRepository.Check<WebSessionRepository.Issued> {
        try await database.write { connection in
            switch try AuthTokenRepository.consume(token, purpose: .webSignIn, on: connection, now: now) {
            case .rejected(let rejection):
                return .rejected(rejection)
            case .valid(let link):
                guard let issued = try Self.openSession(accountID: link.accountID, proving: link.email, secrets: secrets, on: connection, now: now)
                else {
                    return .rejected(.unknown)
                }
                return .valid(issued)
            }
        }
    }

    /// What a typed sign-in code led to: a session, or why it was refused (an outcome the caller
    /// switches on, not an error: CONVENTIONS.md keeps one error type per module).
    public enum CodeOutcome: Sendable {
        /// Accepted: the new session.
        case signedIn(WebSessionRepository.Issued)
        /// Wrong; this many tries are left.
        case wrong(remaining: Int)
        /// No live code for the address (never sent, expired, used or out of tries): a new mail is needed.
        case noLiveCode
    }

    /// Signs in with the 6-digit code mailed to `email` beside the link: a new session for the
    /// account the mail was for, whose address the code proved.
    /// - Throws: `StorageError`, `CryptoError`.
    public func signIn(email: String, code: String, now: Date) async throws -> CodeOutcome {
        let email = email.lowercased()
        let secrets = self.secrets
        return try await database.write { connection in
            switch try SignInCodeRepository.check(email: email, typed: code, secrets: secrets, on: connection, now: now) {
            case .noLiveCode: return .noLiveCode
            case .wrong(let remaining): return .wrong(remaining: remaining)
            case .accepted(let accountID):
                guard let issued = try Self.openSession(accountID: accountID, proving: email, secrets: secrets, on: connection, now: now) else {
                    return .noLiveCode
                }
                return .signedIn(issued)
            }
        }
    }

    /// A session after a link or code sent to `email` proved the address, for the account the
    /// address opens now (`AddressSignInTarget`, checked again at use: what changed since the mail
    /// counts): the one that confirmed it; the web buyer's, which confirms it now; else the account
    /// the link was issued for while it still holds nothing but the request for the address (or a
    /// new one), which confirms it (`AddressProof`). Nil when the account was deleted.
    private static func openSession(
        accountID: String, proving email: String?, secrets: DomainSecrets, on connection: Connection, now: Date
    ) throws -> Issued? {
        guard let email else { return nil }
        let opened: String
        switch try AddressSignInTarget.resolve(email: email, on: connection) {
        case .confirmed(let id), .webBuyer(let id):
            opened = id
        case .newAccount:
            guard let issuedFor = try AccountRepository.find(id: accountID, on: connection),
                !(try AccountErasure.isDeleted(accountID: issuedFor.id, on: connection))
            else { return nil }
            let holdsNothing =
                try issuedFor.confirmedEmail == nil && AccountRepository.holdsNothingButAddress(accountID: issuedFor.id, on: connection)
            opened = holdsNothing ? issuedFor.id : try AccountRepository.create(email: email, secrets: secrets, on: connection, now: now).id
        }
        guard try AddressProof.proved(email, accountID: opened, on: connection, now: now) else { return nil }
        return try WebSessionRepository.issue(accountID: opened, on: connection, now: now)
    }

    /// Signs in with the account's email and password.
    /// - Throws: `StorageError`, `CryptoError`.
    public func signIn(email: String, password: String, now: Date) async throws -> PasswordOutcome {
        switch try await passwords.verify(email: email, password: password, now: now) {
        case .refused: return .refused
        case .verified(let accountID):
            return .signedIn(try await database.write { try WebSessionRepository.issue(accountID: accountID, on: $0, now: now) })
        }
    }

    /// The session a cookie names, its expiry moved forward when due; nil when signed out.
    /// - Throws: `StorageError`.
    public func session(_ cookieValue: String?, now: Date) async throws -> WebSessionRepository.Session? {
        guard let cookieValue, !cookieValue.isEmpty else { return nil }
        guard let found = try await database.read({ try WebSessionRepository.find(cookieValue, on: $0, now: now) }) else { return nil }
        guard now.addingTimeInterval(WebSessionRepository.lifetime).timeIntervalSince(found.expiresAt) >= WebSessionRepository.extensionStep
        else { return found }
        return try await database.write { try WebSessionRepository.use(cookieValue, on: $0, now: now) }
    }

    /// Ends a session found by `session(_:now:)` (its form checked): one write, no second lookup.
    /// - Throws: `StorageError`.
    public func signOut(_ session: Session, now: Date) async throws {
        try await database.write { try WebSessionRepository.revoke(sessionID: session.id, on: $0, now: now) }
    }
}
