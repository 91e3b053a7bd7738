import Crypto
import Domain
import Foundation
import Logging
import Storage

/// Signing a buyer in on Tollgate's own pages (API.md "The buyer's web account"): a one-time
/// link by email (10 minutes), the 6-digit code in the same mail (typed on the page the buyer is
/// on, so a buyer inside an app's web view signs in there: `SignInCodeRepository`), or the
/// account's password, any of which opens a cookie session (`WebSessionRepository`). Asking for a link answers the same whether or not the
/// email is known; links to one account go out at most once a minute.
public struct WebSignIn: Sendable {
    /// A signed-in browser's session.
    public typealias Session = WebSessionRepository.Session
    /// A new session and the cookie value that names it.
    public typealias Issued = WebSessionRepository.Issued
    /// Why a sign-in link was refused.
    public typealias LinkRejection = AuthTokenRepository.Rejection

    /// At most one link per account in this many seconds.
    public static let linkInterval: TimeInterval = 60

    /// The outcome of a password sign-in.
    public enum PasswordOutcome: Sendable {
        case signedIn(WebSessionRepository.Issued)
        /// The account has no password: a set-password link was mailed (at most every 10 minutes).
        case passwordNotSet
        /// Unknown email or wrong password (one answer for both).
        case refused
    }

    let database: Database
    let mail: MailQueue
    let links: Links
    let secrets: DomainSecrets
    let passwords: PasswordCheck
    let logger: Logger

    public init(database: Database, mail: MailQueue, links: Links, authMail: AuthMail, secrets: DomainSecrets, logger: Logger) {
        self.database = database
        self.mail = mail
        self.links = links
        self.secrets = secrets
        self.passwords = PasswordCheck(database: database, authMail: authMail, mail: mail)
        self.logger = logger
    }

    /// Mails a sign-in link and code to `email` for the account the address opens
    /// (`AddressSignInTarget`); the caller answers the same whatever happened. Links for one
    /// account, or for an address that opens none yet, go out at most once a minute.
    /// - Throws: `StorageError`, `CryptoError`, `MailError`.
    public func requestLink(email: String, now: Date) async throws {
        let email = email.lowercased()
        let (mail, links, secrets) = (self.mail, self.links, self.secrets)
        let queued = try await database.write { connection -> Bool in
            guard let accountID = try Self.account(for: email, secrets: secrets, on: connection, now: now) else { return false }
            let token = try AuthTokenRepository.issue(.webSignIn, accountID: accountID, email: email, on: connection, now: now)
            let code = try SignInCodeRepository.issue(accountID: accountID, email: email, key: secrets.signInCodeKey, on: connection, now: now)
            let locale = try PurchaseLocale.latest(accountID: accountID, email: email, on: connection)
            try mail.enqueue(
                key: "web-sign-in:\(try EntityID.make("m"))", template: "login_link", to: email,
                parameters: AuthMail.localized([
                    "login_url": links.url("/account/sign-in/link?token=" + token, locale: locale),
                    "expiry_minutes": "10", "sign_in_code": code,
                ], locale),
                on: connection)
            return true
        }
        if queued { mail.queued() }
    }

    /// The account a link for `email` is issued for, or nil when the throttle says wait: the
    /// account the address opens (`AddressSignInTarget`), else, when the address bought something
    /// or an account names it, an empty account without an address that stands for the new one
    /// (the link is checked again when used: `openSession`). Nil for an address nothing knows.
    static func account(for email: String, secrets: DomainSecrets, on connection: Connection, now: Date) throws -> String? {
        let target = try AddressSignInTarget.resolve(email: email, on: connection)
        if let accountID = target.accountID {
            return try ResendThrottle.claim("web-sign-in:" + accountID, interval: Self.linkInterval, on: connection, now: now) ? accountID : nil
        }
        let known = try !PurchaseRepository.forEmail(email, on: connection).isEmpty || AccountRepository.find(email: email, on: connection) != nil
        // The throttle keeps no address: its hash names it.
        let addressKey = "web-sign-in-new:" + Hex.encode(try SHA256.hash(Array(email.utf8)))
        guard known, try ResendThrottle.claim(addressKey, interval: Self.linkInterval, on: connection, now: now) else {
            return nil
        }
        return try AccountRepository.create(secrets: secrets, on: connection, now: now).id
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
                guard let issued = try Self.openSession(accountID: link.accountID, proving: link.email, secrets: secrets, on: connection, now: now) else {
                    return .rejected(.unknown)
                }
                return .valid(issued)
            }
        }
    }

    /// What a typed sign-in code led to: a session, or why it was refused (an outcome the caller
    /// switches on, not an error: CONVENTIONS keeps one error type per module).
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
        let key = secrets.signInCodeKey
        return try await database.write { connection in
            switch try SignInCodeRepository.check(email: email, typed: code, key: key, on: connection, now: now) {
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
    /// counts): the one that confirmed it; the web buyer's, which confirms it now; else the empty
    /// account the link was issued for (or a new one), with the address confirmed. Nil when the
    /// account was deleted.
    private static func openSession(
        accountID: String, proving email: String?, secrets: DomainSecrets, on connection: Connection, now: Date
    ) throws -> Issued? {
        guard let email else { return nil }
        let opened: String
        switch try AddressSignInTarget.resolve(email: email, on: connection) {
        case .confirmed(let id):
            opened = id
        case .webBuyer(let id):
            try AccountRepository.confirmEmail(email, accountID: id, on: connection, now: now)
            opened = id
        case .newAccount:
            guard let issuedFor = try AccountRepository.find(id: accountID, on: connection),
                !(try AccountErasure.isDeleted(accountID: issuedFor.id, on: connection))
            else { return nil }
            opened = try holdsNothing(issuedFor, on: connection) ? issuedFor.id : try AccountRepository.create(secrets: secrets, on: connection, now: now).id
            try AccountRepository.confirmEmail(email, accountID: opened, on: connection, now: now)
        }
        return try WebSessionRepository.issue(accountID: opened, on: connection, now: now)
    }

    /// An account made for a sign-in link that nothing has used yet: no address, no password, no
    /// purchase, no app user.
    private static func holdsNothing(_ account: Account, on connection: Connection) throws -> Bool {
        guard account.email == nil, !account.hasPassword else { return false }
        return try PurchaseRepository.forAccount(account.id, on: connection).isEmpty
            && AccountRepository.appUserIDs(accountID: account.id, on: connection).isEmpty
    }

    /// Signs in with the account's email and password.
    /// - Throws: `StorageError`, `CryptoError`.
    public func signIn(email: String, password: String, now: Date) async throws -> PasswordOutcome {
        switch try await passwords.verify(email: email, password: password, now: now) {
        case .refused: return .refused
        case .passwordNotSet: return .passwordNotSet
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
