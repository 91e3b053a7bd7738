import Domain
import Foundation
import Integrations
import Logging
import Storage

/// App Store Server Notifications V2 (`POST /webhooks/apple`). The payload is verified (chain to
/// a configured root, signature, bundle id, app Apple id, environment) before anything else.
/// `TEST` stores nothing. Otherwise the notification is recorded under its `notificationUUID` in
/// the same transaction as its effect, so a repeat does nothing. The snapshot's `observedAt` is
/// the notification's `signedDate`: older news never moves a purchase back. An unlinked purchase
/// whose `appAccountToken` is one of our accounts' obfuscated ids is linked to that account.
/// `EXTERNAL_PURCHASE_TOKEN` / `UNREPORTED` makes a link-out token without a report reported
/// (`UNRECOGNIZED_TOKEN` for one Tollgate never kept).
///
/// A notification Tollgate can verify but not use is acknowledged and stored nowhere (a `4xx`
/// would make Apple retry it for days): one whose chain and signature verify but that belongs to
/// another environment (a Sandbox notification at a Production deployment, or the reverse) or
/// another app (bundle id, app Apple id), and Apple's version 1 notifications (JSON with
/// `notification_type`, no signature). Only notifications that do not verify are refused.
public struct ApplyAppleNotification: Sendable {
    /// What became of a notification.
    public enum Outcome: String, Sendable, Equatable {
        /// `TEST`: acknowledged, nothing stored.
        case test
        /// Recorded under its `notificationUUID`, its effect applied.
        case applied
        /// A `notificationUUID` already recorded: nothing done twice.
        case duplicate
        /// Verified (or version 1) but not for this deployment: acknowledged, logged, nothing stored.
        case ignored
    }

    let verifier: AppStoreSignedDataVerifier?
    let webhookEvents: WebhookEvents
    let logger: Logger
    let events: EventQueue
    let durations: ProductDurations
    /// Called after a commit that may have queued a link-out report (wakes the report worker).
    let linkOutQueued: @Sendable () -> Void
    /// Seals the row of a token Apple told of that Tollgate never kept; nil: such tokens are not reported.
    let linkOutVault: LinkOutTokenVault?
    /// `apple.consumption.enabled`: `CONSUMPTION_REQUEST` queues Apple's Send Consumption
    /// Information answer (`ConsumptionInformationWorker`); off, it is only acknowledged.
    let answersConsumptionRequests: Bool
    /// Called after a commit that queued such an answer (wakes its worker).
    let consumptionQueued: @Sendable () -> Void

    public init(
        verifier: AppStoreSignedDataVerifier?, database: Database, logger: Logger, durations: ProductDurations = ProductDurations(days: [:]),
        events: EventQueue = .disabled, linkOutVault: LinkOutTokenVault? = nil, linkOutQueued: @escaping @Sendable () -> Void = {},
        answersConsumptionRequests: Bool = false, consumptionQueued: @escaping @Sendable () -> Void = {}
    ) {
        self.answersConsumptionRequests = answersConsumptionRequests
        self.consumptionQueued = consumptionQueued
        self.linkOutQueued = linkOutQueued
        self.linkOutVault = linkOutVault
        self.durations = durations
        self.verifier = verifier
        webhookEvents = WebhookEvents(database: database, source: "apple")
        self.logger = logger
        self.events = events
    }

    /// - Returns: `.ignored` for a verified notification of another environment or app.
    /// - Throws: `UseCaseError` (`not_configured`; `bad_request` for a payload that does not
    ///   verify or has no `notificationUUID`), `StorageError`.
    public func apply(signedPayload: String, now: Date) async throws -> Outcome {
        guard let verifier else { throw StoreErrors.notConfigured(StoreClients.Missing.appleVerifier) }
        let notification: AppStoreNotification
        let verified: PurchaseSnapshot?
        do {
            notification = try verifier.verifyNotification(signedPayload, now: now)
            verified = try notification.snapshot(now: now)
        } catch AppStoreError.verification(let error) where error.kind == .wrongEnvironment || error.kind == .wrongAppIdentifier {
            // Chain and signature verified first: Apple sent it, to the wrong place. Its to stop, not to retry.
            logger.warning("apple_notification_ignored", [("kind", .string(error.kind.rawValue)), ("reason", .string(error.message))])
            return .ignored
        } catch AppStoreError.verification(let error) {
            logger.warning("apple_notification_rejected", [("reason", .string(error.description))])
            if error.kind == .missingField { throw UseCaseError.badRequest("The notification cannot be applied: \(error.description)") }
            throw UseCaseError.badRequest("The notification does not verify: \(error.description)")
        }
        let snapshot: PurchaseSnapshot?
        do {
            snapshot = try verified.map { try durations.applied(to: $0, now: now) }
        } catch let missing as DomainError where missing.missingDurationProductID != nil {
            // Signed and valid, but unusable until configured: acknowledged (Apple would retry for
            // days), recorded, and logged for the operator; the next claim of it says the same.
            logger.error("apple_notification_unusable", [("reason", .string(missing.description))])
            snapshot = nil
        }
        if notification.isTest {
            logger.info("apple_notification_test", [("uuid", .string(notification.notificationUUID ?? ""))])
            return .test
        }
        guard let uuid = notification.notificationUUID, !uuid.isEmpty, uuid.utf8.count <= 128 else {
            throw UseCaseError.badRequest("The notification has no notificationUUID.")
        }
        let type = notification.notificationType + (notification.subtype.map { "/" + $0 } ?? "")
        let events = self.events
        let vault = linkOutVault
        let consumption = answersConsumptionRequests ? Self.consumptionRequest(notification) : nil
        let applied = try await webhookEvents.record(uuid, type: type, now: now) { connection in
            if let consumption {
                try ConsumptionRequestQueue.enqueue(
                    transactionID: consumption.transactionID, originalTransactionID: consumption.originalTransactionID,
                    environment: consumption.environment, on: connection, now: now)
            }
            if try Self.reportUnreportedToken(notification, vault: vault, on: connection, now: now) { return }
            guard let snapshot else { return }
            let result = try PurchaseRepository.apply(snapshot, on: connection, now: now)
            try events.purchaseApplied(result, on: connection, now: now)
            try PurchaseClaim.linkByOwnerHint(result.purchase, events: events, on: connection, now: now)
        }
        if applied, notification.notificationType == "EXTERNAL_PURCHASE_TOKEN" { linkOutQueued() }
        if applied, consumption != nil { consumptionQueued() }
        logger.info(
            "apple_notification",
            [
                ("uuid", .string(uuid)), ("type", .string(type)), ("duplicate", .bool(!applied)), ("changes_state", .bool(snapshot != nil))
            ])
        return applied ? .applied : .duplicate
    }

    /// The transaction a `CONSUMPTION_REQUEST` asks about (nil for any other notification).
    static func consumptionRequest(_ notification: AppStoreNotification) -> (
        transactionID: String, originalTransactionID: String?, environment: String
    )? {
        guard notification.notificationType == "CONSUMPTION_REQUEST", let transaction = notification.data?.transaction,
            let transactionID = transaction.transactionID
        else { return nil }
        let environment = transaction.environment ?? notification.data?.environment ?? AppStoreEnvironment.production.rawValue
        return (transactionID, transaction.originalTransactionID, environment)
    }

    /// Acknowledges an App Store Server Notification version 1 (`notification_type`, unsigned):
    /// Tollgate uses version 2 only, and answering `4xx` would make Apple retry it. Logged at
    /// warning (the App Store Connect URL should be set to version 2), nothing stored.
    public func acknowledgeVersion1(notificationType: String) -> Outcome {
        logger.warning(
            "apple_notification_ignored",
            [
                ("kind", .string("version_1")), ("type", .string(String(notificationType.prefix(64)))),
                ("reason", .string("a version 1 notification; set the App Store Server Notifications URL to version 2"))
            ])
        return .ignored
    }
}
