import Domain
import Foundation
import Mail
import Storage

/// Deletes an account (API.md "Account deletion and data export"), asked by the app for its
/// signed-in account or by an operator: in one transaction its personal data is erased
/// (`AccountErasure`), mail to its addresses is cancelled and forgotten, `account.deleted` is
/// queued and the audit log records what was done, without an address. Idempotent: a repeat
/// finds the account already deleted and answers as the first did.
public struct DeleteAccount: Sendable {
    let database: Database
    let events: EventQueue

    public init(database: Database, events: EventQueue = .disabled) {
        self.database = database
        self.events = events
    }

    /// What a deletion found.
    public enum Outcome: Sendable, Equatable {
        /// Deleted now.
        case deleted(accountID: String)
        /// Deleted before.
        case alreadyDeleted(accountID: String)

        public var accountID: String {
            switch self {
            case .deleted(let id), .alreadyDeleted(let id): id
            }
        }
    }

    /// Deletes the signed-in account (the app's bearer token or the web session). The same
    /// credential, sent again after the deletion (a lost answer), finds the account it deleted.
    /// - Throws: `UseCaseError.unauthorized` without a credential or with one that never signed in.
    public func signedIn(_ credential: Credential, now: Date) async throws -> Outcome {
        let outcome = try await database.write { connection -> Outcome in
            let accountID: String
            do {
                accountID = try credential.requireAccount(on: connection, now: now)
            } catch let error as UseCaseError {
                guard let issued = try credential.issuedAccount(on: connection),
                    try AccountErasure.isDeleted(accountID: issued, on: connection)
                else { throw error }
                return .alreadyDeleted(accountID: issued)
            }
            return try erase(accountID, actor: AuditActor(name: "app", role: .viewer), on: connection, now: now)
        }
        events.queued()
        return outcome
    }

    /// An operator's deletion of `accountID` (`DELETE /admin/v1/accounts/{id}`).
    /// - Throws: `UseCaseError.notFound` for an unknown account.
    public func byOperator(accountID: String, actor: String, now: Date) async throws -> Outcome {
        try await byOperator(accountID: accountID, by: AuditActor(name: actor, role: .admin), now: now)
    }

    /// `byOperator` for `actor`, whose role must allow it (`UseCaseError.forbidden`, nothing done).
    public func byOperator(accountID: String, by actor: AuditActor, now: Date) async throws -> Outcome {
        try OperatorActions.require(.deleteAccount, actor)
        let outcome = try await database.write { connection in
            try erase(accountID, actor: actor, on: connection, now: now)
        }
        events.queued()
        return outcome
    }

    /// An operator's deletion of every account that has `email` (`tollgate admin delete-account`).
    /// - Throws: `UseCaseError.notFound` when no account has it.
    public func byOperator(email: String, actor: String, now: Date) async throws -> [Outcome] {
        let outcomes = try await database.write { connection -> [Outcome] in
            let accounts = try AccountRepository.all(email: email, on: connection)
            guard !accounts.isEmpty else { throw UseCaseError.notFound("No account has this email address.") }
            return try accounts.map { try erase($0.id, actor: AuditActor(name: actor, role: .admin), on: connection, now: now) }
        }
        events.queued()
        return outcomes
    }

    private func erase(_ accountID: String, actor: AuditActor, on connection: Connection, now: Date) throws -> Outcome {
        switch try AccountErasure.erase(accountID: accountID, on: connection, now: now) {
        case .notFound:
            throw UseCaseError.notFound("No account \(accountID).")
        case .alreadyDeleted:
            return .alreadyDeleted(accountID: accountID)
        case .erased(let erased):
            let mail = try Outbox.forget(recipients: erased.emails, on: connection, now: now)
            try events.accountDeleted(erased, on: connection, now: now)
            try AuditLog.record(
                actor, action: "account.delete", target: accountID,
                details: "personal data erased; \(erased.purchaseIDs.count) purchase(s) detached, \(erased.codesRevoked) code(s) revoked, "
                    + "\(erased.devicesRemoved) device(s) removed, \(mail.cancelled) unsent email(s) cancelled",
                on: connection, now: now)
            return .deleted(accountID: accountID)
        }
    }
}
