import Domain
import Foundation
import Storage

/// The emailed confirmation link: `GET /email/confirm` only looks (mail scanners prefetch),
/// `POST /email/confirm` confirms, and an expired or used link can ask for a new mail.
public struct ConfirmEmail: Sendable {
    /// What confirming did.
    public enum Outcome: Sendable, Equatable {
        case confirmed(email: String)
        /// Another account has this address confirmed already.
        case takenByAnotherAccount
        case rejected(AuthTokenRepository.Rejection)
    }

    let database: Database
    let authMail: AuthMail
    let mail: MailQueue
    let events: EventQueue

    public init(database: Database, authMail: AuthMail, mail: MailQueue, events: EventQueue = .disabled) {
        self.events = events
        self.database = database
        self.authMail = authMail
        self.mail = mail
    }

    /// What a live confirmation link shows.
    public struct Pending: Sendable, Equatable {
        /// The address the link confirms.
        public let email: String
        /// The account has no password: the page offers to set one (API.md, Password sign-in).
        public let offersPassword: Bool
    }

    /// The address a link would confirm, or why it cannot. Changes nothing.
    /// - Throws: `StorageError`.
    public func peek(_ token: String, now: Date) async throws -> AuthTokenRepository.Check<Pending> {
        try await database.read { connection -> AuthTokenRepository.Check<Pending> in
            switch try AuthTokenRepository.peek(token, purpose: .emailConfirmation, on: connection, now: now) {
            case .rejected(let rejection):
                return .rejected(rejection)
            case .valid(let stored):
                guard let email = stored.email, let account = try AccountRepository.find(id: stored.accountID, on: connection),
                    Self.stillAsked(email, by: account)
                else { return .rejected(.used) }
                return .valid(Pending(email: email, offersPassword: !account.hasPassword))
            }
        }
    }

    /// Whether a link for `email` still stands for `account`: it is the account's request, or
    /// the address it confirmed already (a second click). A newer request ends older links.
    static func stillAsked(_ email: String, by account: Account) -> Bool {
        let email = email.lowercased()
        return account.requestedEmail == email || account.confirmedEmail == email
    }

    /// Confirms the address of the link (one use), and sets `password` (checked for length by
    /// the caller's form) when the account has none.
    /// - Throws: `StorageError`, `CryptoError`.
    public func confirm(_ token: String, password: String? = nil, now: Date) async throws -> Outcome {
        let events = self.events
        var hash: String?
        if let password { hash = try await PasswordWork.hash(password) }
        let passwordHash = hash
        return try await database.write { connection -> Outcome in
            switch try AuthTokenRepository.consume(token, purpose: .emailConfirmation, on: connection, now: now) {
            case .rejected(let rejection):
                return .rejected(rejection)
            case .valid(let stored):
                guard let email = stored.email, let account = try AccountRepository.find(id: stored.accountID, on: connection),
                    !(try AccountErasure.isDeleted(accountID: account.id, on: connection)), Self.stillAsked(email, by: account)
                else { return .rejected(.used) }
                do {
                    try AccountRepository.confirmEmail(email, accountID: account.id, on: connection, now: now)
                    if account.confirmedEmail != email.lowercased() {
                        try events.emailConfirmed(accountID: account.id, on: connection, now: now)
                    }
                } catch let error as DomainError where error.reason == .emailConfirmedElsewhere {
                    return .takenByAnotherAccount
                }
                if let passwordHash, try AccountRepository.passwordHash(accountID: account.id, on: connection) == nil {
                    try AccountRepository.setPasswordHash(passwordHash, accountID: account.id, on: connection, now: now)
                }
                return .confirmed(email: email)
            }
        }
    }

    /// Mails a new link for the address of an expired or used one, while that address is still
    /// the account's request (at most one confirmation mail per address per resend interval).
    /// Returns the address mailed, or nil.
    /// - Throws: `StorageError`.
    public func resend(forExpired token: String, now: Date) async throws -> String? {
        let authMail = self.authMail
        let sent = try await database.write { connection -> String? in
            guard let stored = try AuthTokenRepository.lookup(token, purpose: .emailConfirmation, on: connection),
                let email = stored.email,
                let account = try AccountRepository.find(id: stored.accountID, on: connection),
                account.requestedEmail == email.lowercased(),
                try authMail.queueConfirmation(accountID: account.id, email: email, on: connection)
            else { return nil }
            return email
        }
        if sent != nil { mail.queued() }
        return sent
    }
}
