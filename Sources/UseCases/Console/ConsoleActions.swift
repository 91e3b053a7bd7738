import Domain
import Foundation
import Mail
import Storage

/// The console's actions for a buyer that have no admin API of their own yet: sign a device
/// out, sign the buyer out everywhere, resend the confirmation mail, move a purchase to another
/// app user, retry a failed mail or link-out report. Each checks the actor's role first (403,
/// nothing done), runs in one transaction with its audit entry (who, what, target, reason,
/// client address). Resend, revoke, delete, export and event retries are `OperatorActions`,
/// `DeleteAccount` and `ExportAccount`, shared with the admin API and the CLI.
public struct ConsoleActions: Sendable {
    let database: Database
    let authMail: AuthMail
    let mail: MailQueue
    let secrets: DomainSecrets
    let events: EventQueue
    let linkOutQueued: @Sendable () -> Void

    public init(
        database: Database, authMail: AuthMail, mail: MailQueue, secrets: DomainSecrets, events: EventQueue,
        linkOutQueued: @escaping @Sendable () -> Void = {}
    ) {
        self.database = database
        self.authMail = authMail
        self.mail = mail
        self.secrets = secrets
        self.events = events
        self.linkOutQueued = linkOutQueued
    }

    /// Ends every session of one of the account's devices.
    /// - Throws: `UseCaseError.forbidden`, `.notFound`.
    public func signOutDevice(accountID: String, deviceID: String, by actor: AuditActor, now: Date) async throws {
        try OperatorActions.require(.signOutDevice, actor)
        try await database.write { connection in
            guard try DeviceRepository.exists(accountID: accountID, deviceID: deviceID, on: connection) else {
                throw UseCaseError.notFound("No device \(deviceID) on account \(accountID).")
            }
            try SessionRepository.revoke(accountID: accountID, deviceID: deviceID, on: connection, now: now)
            try DeviceRepository.signOut(accountID: accountID, deviceID: deviceID, on: connection, now: now)
            try AuditLog.record(
                actor, action: "device.sign_out", target: accountID, details: "device \(deviceID) signed out", on: connection, now: now)
        }
    }

    /// Ends every session of the account: the app's, every device's and the web's.
    /// - Throws: `UseCaseError.forbidden`, `.notFound`.
    public func signOutEverywhere(accountID: String, by actor: AuditActor, now: Date) async throws {
        try OperatorActions.require(.signOutEverywhere, actor)
        try await database.write { connection in
            try Self.requireAccount(accountID, on: connection)
            try SessionRepository.revokeAll(accountID: accountID, on: connection)
            try WebSessionRepository.revokeAll(accountID: accountID, on: connection, now: now)
            try AuditLog.record(
                actor, action: "account.sign_out_everywhere", target: accountID, details: "every session ended", on: connection, now: now)
        }
    }

    /// Mails the account's address a new confirmation link.
    /// - Throws: `UseCaseError.forbidden`, `.notFound`, `.conflict` (no address, or already confirmed).
    public func resendConfirmation(accountID: String, by actor: AuditActor, now: Date) async throws {
        try OperatorActions.require(.resendConfirmation, actor)
        try await database.write { connection in
            let account = try Self.requireAccount(accountID, on: connection)
            guard let email = account.email else { throw UseCaseError.conflict("This account has no email address to confirm.") }
            guard !account.emailVerified else { throw UseCaseError.conflict("This account's email address is confirmed already.") }
            try authMail.queueConfirmation(accountID: accountID, email: email, on: connection)
            try AuditLog.record(
                actor, action: "email.resend_confirmation", target: accountID, details: "confirmation mailed to \(EmailMask.mask(email))",
                on: connection, now: now)
        }
        mail.queued()
    }

    /// Moves a purchase to the account of `appUserID` (created for it when new).
    /// - Throws: `UseCaseError.forbidden`, `.notFound`, `.badRequest`.
    public func movePurchase(purchaseID: String, toAppUserID appUserID: String, by actor: AuditActor, now: Date) async throws -> String {
        try OperatorActions.require(.movePurchase, actor)
        let appUserID = appUserID.trimmingCharacters(in: .whitespaces)
        guard !appUserID.isEmpty, appUserID.utf8.count <= 256 else { throw UseCaseError.badRequest("Give the app user id to move the purchase to.") }
        let secrets = self.secrets
        let events = self.events
        let accountID = try await database.write { connection -> String in
            guard let purchase = try PurchaseRepository.find(id: purchaseID, on: connection) else {
                throw UseCaseError.notFound("No purchase \(purchaseID).")
            }
            try AccountRepository.lock(appUserID: appUserID, on: connection)
            let (account, created) = try AccountRepository.findOrCreate(appUserID: appUserID, secrets: secrets, on: connection, now: now)
            if created { try events.accountCreated(account.id, on: connection, now: now) }
            let from = purchase.accountID ?? "no account"
            try PurchaseRepository.link(purchaseID: purchase.id, to: account.id, on: connection, now: now)
            try events.purchaseLinked(purchase, to: account.id, on: connection, now: now)
            try PurchaseHistory.record(
                try PurchaseRepository.require(id: purchase.id, on: connection), source: .operator, on: connection, now: now)
            try AuditLog.record(
                actor, action: "purchase.move", target: purchase.id, details: "from \(from) to app user \(appUserID) (account \(account.id))",
                on: connection, now: now)
            return account.id
        }
        events.queued()
        return accountID
    }

    /// Queues a failed mail again, due now.
    /// - Throws: `UseCaseError.forbidden`, `.notFound` (no failed mail with that id).
    public func retryMail(id: String, by actor: AuditActor, now: Date) async throws {
        try OperatorActions.require(.retryDelivery, actor)
        try await database.write { connection in
            guard try Outbox.retry(id: id, on: connection, now: now) else { throw UseCaseError.notFound("No failed mail \(id).") }
            try AuditLog.record(actor, action: "mail.retry", target: id, details: "queued again", on: connection, now: now)
        }
        mail.queued()
    }

    /// Queues a failed link-out report again, due now.
    /// - Throws: `UseCaseError.forbidden`, `.notFound` (no failed report with that id).
    public func retryReport(id: String, by actor: AuditActor, now: Date) async throws {
        try OperatorActions.require(.retryDelivery, actor)
        try await database.write { connection in
            guard try LinkOutReportStore.retry(id: id, on: connection, now: now) else { throw UseCaseError.notFound("No failed report \(id).") }
            try AuditLog.record(actor, action: "report.retry", target: id, details: "queued again", on: connection, now: now)
        }
        linkOutQueued()
    }

    @discardableResult
    static func requireAccount(_ accountID: String, on connection: Connection) throws -> Account {
        guard let account = try AccountRepository.find(id: accountID, on: connection),
            try !AccountErasure.isDeleted(accountID: accountID, on: connection)
        else { throw UseCaseError.notFound("No account \(accountID).") }
        return account
    }
}
