import Domain
import Foundation
import Storage

/// What operators can do, shared by the admin HTTP API and the `tollgate admin` command;
/// every action is written to the audit log in the same transaction.
public struct AdminOperations: Sendable {
    let services: AppServices

    public init(services: AppServices) { self.services = services }

    /// The outcome of a resend.
    public struct Resent: Sendable {
        public let email: String
        public let codeID: String
        public let expiresAt: Date
    }

    /// Issues a fresh code (replacing the live one) and emails it, for a purchase or for the
    /// newest active web purchase of an email. Operators are not throttled.
    /// - Throws: `APIError.notFound` when there is no such purchase or it has no email.
    public func resend(email: String?, purchaseID: String?, actor: String) async throws -> Resent {
        let services = self.services
        let now = services.now()
        let resent = try await services.database.write { connection -> Resent in
            let purchase: Purchase?
            if let purchaseID {
                purchase = try PurchaseRepository.find(id: purchaseID, on: connection)
            } else if let email {
                purchase = try PurchaseRepository.forEmail(email, platform: .stripe, on: connection)
                    .filter { $0.isEntitled(at: now) }.max { $0.createdAt < $1.createdAt }
            } else {
                throw APIError.badRequest("Send email or purchase_id.")
            }
            guard let purchase else { throw APIError.notFound("No matching web purchase.") }
            guard let address = purchase.purchaserEmail else {
                throw APIError.unprocessable("This purchase has no email address to send a code to.")
            }
            let issued = try services.redemption.resendNow(purchase: purchase, email: address, on: connection, now: now)
            try CodeMail(services: services).queueResent(issued, purchase: purchase, to: address, on: connection)
            try AuditLog.record(
                actor: actor, action: "code.resend", target: purchase.id,
                details: "code \(issued.record.id) (…\(issued.record.hint)) to \(EmailMask.mask(address))", on: connection, now: now)
            return Resent(email: address, codeID: issued.record.id, expiresAt: issued.record.expiresAt)
        }
        services.mailQueued()
        return resent
    }

    /// Revokes a code so it answers `invalid_code`.
    /// - Throws: `APIError.notFound` for an unknown code id.
    public func revoke(codeID: String, actor: String) async throws -> RedemptionCodeRecord {
        let now = services.now()
        return try await services.database.write { connection in
            guard try CodeRepository.find(id: codeID, on: connection) != nil else { throw APIError.notFound("No code \(codeID).") }
            let changed = try CodeRepository.revoke(id: codeID, on: connection, now: now)
            try AuditLog.record(actor: actor, action: "code.revoke", target: codeID, details: changed ? "revoked" : "already revoked", on: connection, now: now)
            return try CodeRepository.require(id: codeID, on: connection)
        }
    }

    public func purchases(email: String) async throws -> [Purchase] {
        try await services.database.read { try PurchaseRepository.forEmail(email, on: $0) }
    }

    public func codes(email: String) async throws -> [RedemptionCodeRecord] {
        try await services.database.read { try CodeRepository.forEmail(email, on: $0) }
    }

    /// An account with what belongs to it, for operators.
    public struct AccountSummary: Sendable {
        public let account: Account
        public let appUserIDs: [String]
        public let devices: [String]
        public let purchaseIDs: [String]
    }

    /// The accounts that have `email` (confirmed or not).
    public func accounts(email: String) async throws -> [AccountSummary] {
        try await services.database.read { connection in
            try AccountRepository.all(email: email, on: connection).map { account in
                AccountSummary(
                    account: account,
                    appUserIDs: try AccountRepository.appUserIDs(accountID: account.id, on: connection),
                    devices: try DeviceRepository.active(accountID: account.id, on: connection),
                    purchaseIDs: try PurchaseRepository.forAccount(account.id, on: connection).map(\.id))
            }
        }
    }
}
