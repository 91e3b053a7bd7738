import Mail
import Domain
import Foundation
import Storage

/// What operators can do, shared by the admin HTTP API and the `tollgate admin` command;
/// every action is written to the audit log in the same transaction.
public struct OperatorActions: Sendable {
    let database: Database
    let resend: CodeResend
    let codeMail: CodeMail
    /// Wakes the event worker after a redelivery; knows the retry window.
    let events: EventQueue

    public init(database: Database, resend: CodeResend, codeMail: CodeMail, events: EventQueue = .disabled) {
        self.events = events
        self.database = database
        self.resend = resend
        self.codeMail = codeMail
    }

    /// The outcome of a resend.
    public struct Resent: Sendable {
        public let email: String
        public let codeID: String
        public let expiresAt: Date
    }

    /// Issues a fresh code (replacing the live one) and emails it, for a purchase or for the
    /// newest active web purchase of an email. Operators are not throttled.
    /// - Throws: `UseCaseError.notFound` when there is no such purchase or it has no email.
    public func resend(email: String?, purchaseID: String?, actor: String, now: Date) async throws -> Resent {
        try await resend(email: email, purchaseID: purchaseID, by: AuditActor(name: actor, role: .admin), now: now)
    }

    /// `resend` for `actor`, whose role must allow it (`UseCaseError.forbidden`, nothing done).
    public func resend(email: String?, purchaseID: String?, by actor: AuditActor, now: Date) async throws -> Resent {
        try Self.require(.resendCode, actor)
        let resend = self.resend
        let codeMail = self.codeMail
        let resent = try await database.write { connection -> Resent in
            let purchase: Purchase?
            if let purchaseID {
                purchase = try PurchaseRepository.find(id: purchaseID, on: connection)
            } else if let email {
                purchase = try PurchaseRepository.forEmail(email, platform: .stripe, on: connection)
                    .filter { $0.isEntitled(at: now) }.max { $0.createdAt < $1.createdAt }
            } else {
                throw UseCaseError.badRequest("Send email or purchase_id.")
            }
            guard let purchase else { throw UseCaseError.notFound("No matching web purchase.") }
            guard let address = purchase.purchaserEmail else {
                throw UseCaseError.unprocessable("This purchase has no email address to send a code to.")
            }
            let issued = try resend.resendNow(purchase: purchase, email: address, on: connection, now: now)
            try codeMail.queueResent(issued, purchase: purchase, to: address, on: connection)
            try AuditLog.record(
                actor, action: "code.resend", target: purchase.id,
                details: "code \(issued.record.id) to \(EmailMask.mask(address))", on: connection, now: now)
            return Resent(email: address, codeID: issued.record.id, expiresAt: issued.record.expiresAt)
        }
        codeMail.queued()
        return resent
    }

    /// Revokes a code so it answers `invalid_code`.
    /// - Throws: `UseCaseError.notFound` for an unknown code id.
    public func revoke(codeID: String, actor: String, now: Date) async throws -> RedemptionCodeRecord {
        try await revoke(codeID: codeID, by: AuditActor(name: actor, role: .admin), now: now)
    }

    /// `revoke` for `actor`, whose role must allow it (`UseCaseError.forbidden`, nothing done).
    public func revoke(codeID: String, by actor: AuditActor, now: Date) async throws -> RedemptionCodeRecord {
        try Self.require(.revokeCode, actor)
        return try await database.write { connection in
            guard try CodeRepository.find(id: codeID, on: connection) != nil else { throw UseCaseError.notFound("No code \(codeID).") }
            let changed = try CodeRepository.revoke(id: codeID, on: connection, now: now)
            try AuditLog.record(
                actor, action: "code.revoke", target: codeID, details: changed ? "revoked" : "already revoked", on: connection, now: now)
            return try CodeRepository.require(id: codeID, on: connection)
        }
    }

    /// The purchases paid with `email`, and those held by an account with that address (store
    /// purchases carry no email of their own), oldest first.
    public func purchases(email: String) async throws -> [Purchase] {
        try await database.read { connection in
            var purchases = try PurchaseRepository.forEmail(email, on: connection)
            var seen = Set(purchases.map(\.id))
            for account in try AccountRepository.all(email: email, on: connection) {
                for purchase in try PurchaseRepository.forAccount(account.id, on: connection) where seen.insert(purchase.id).inserted {
                    purchases.append(purchase)
                }
            }
            return purchases.sorted { $0.createdAt < $1.createdAt }
        }
    }

    public func codes(email: String) async throws -> [RedemptionCodeRecord] {
        try await database.read { try CodeRepository.forEmail(email, on: $0) }
    }

    /// An account with what belongs to it, for operators.
    public struct AccountSummary: Sendable {
        public let account: Account
        public let appUserIDs: [String]
        public let devices: [String]
        public let purchaseIDs: [String]
    }

    /// The accounts that have `email` (confirmed or not), then those holding a purchase made
    /// with it (a checkout started in the app leaves the payer's address on the purchase only),
    /// so this finds the buyer `purchases(email:)` lists.
    public func accounts(email: String) async throws -> [AccountSummary] {
        try await database.read { connection in
            var accounts = try AccountRepository.all(email: email, on: connection)
            var seen = Set(accounts.map(\.id))
            for purchase in try PurchaseRepository.forEmail(email, on: connection) {
                guard let id = purchase.accountID, seen.insert(id).inserted,
                    let holder = try AccountRepository.find(id: id, on: connection), !(try AccountErasure.isDeleted(accountID: id, on: connection))
                else { continue }
                accounts.append(holder)
            }
            return try accounts.map { account in
                AccountSummary(
                    account: account,
                    appUserIDs: try AccountRepository.appUserIDs(accountID: account.id, on: connection),
                    devices: try DeviceRepository.active(accountID: account.id, on: connection),
                    purchaseIDs: try PurchaseRepository.forAccount(account.id, on: connection).map(\.id))
            }
        }
    }

    /// Refuses `actor` unless its role holds `permission`: the one check every operator action makes.
    /// - Throws: `UseCaseError.forbidden`.
    static func require(_ permission: OperatorRole.Permission, _ actor: AuditActor) throws {
        guard actor.role.allows(permission) else {
            throw UseCaseError.forbidden("Your role (\(actor.role.rawValue)) does not allow this; ask an admin.")
        }
    }

    /// The newest audit entries.
    public func audit(limit: Int) async throws -> [AuditLog.Entry] {
        try await database.read { try AuditLog.recent(limit: limit, on: $0) }
    }
}
