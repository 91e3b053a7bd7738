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

    /// The address a link would confirm, or why it cannot. Changes nothing.
    /// - Throws: `StorageError`.
    public func peek(_ token: String, now: Date) async throws -> AuthTokenRepository.Check<String> {
        let state = try await database.read { try AuthTokenRepository.peek(token, purpose: .emailConfirmation, on: $0, now: now) }
        return state.map { $0.email ?? "" }
    }

    /// Confirms the address of the link (one use).
    /// - Throws: `StorageError`.
    public func confirm(_ token: String, now: Date) async throws -> Outcome {
        let events = self.events
        return try await database.write { connection -> Outcome in
            switch try AuthTokenRepository.consume(token, purpose: .emailConfirmation, on: connection, now: now) {
            case .rejected(let rejection):
                return .rejected(rejection)
            case .valid(let stored):
                guard let email = stored.email else { return .rejected(.unknown) }
                do {
                    let wasConfirmed = try AccountRepository.find(id: stored.accountID, on: connection).map {
                        $0.emailVerified && $0.email == email.lowercased()
                    } ?? false
                    try AccountRepository.confirmEmail(email, accountID: stored.accountID, on: connection, now: now)
                    if !wasConfirmed { try events.emailConfirmed(accountID: stored.accountID, on: connection, now: now) }
                } catch let error as DomainError where error.reason == .emailConfirmedElsewhere {
                    return .takenByAnotherAccount
                }
                return .confirmed(email: email)
            }
        }
    }

    /// Mails a new link for the address of an expired or used one, while that address is still
    /// the account's and unconfirmed (at most once a minute per account). Returns the address
    /// mailed, or nil.
    /// - Throws: `StorageError`.
    public func resend(forExpired token: String, now: Date) async throws -> String? {
        let authMail = self.authMail
        let sent = try await database.write { connection -> String? in
            guard let stored = try AuthTokenRepository.lookup(token, purpose: .emailConfirmation, on: connection),
                let email = stored.email,
                let account = try AccountRepository.find(id: stored.accountID, on: connection),
                account.email == email, !account.emailVerified,
                try ResendThrottle.claim("confirm:\(account.id)", interval: 60, on: connection, now: now)
            else { return nil }
            try authMail.queueConfirmation(accountID: account.id, email: email, on: connection)
            return email
        }
        if sent != nil { mail.queued() }
        return sent
    }
}
