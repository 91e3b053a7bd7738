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
public struct ApplyAppleNotification: Sendable {
    /// What became of a notification.
    public enum Outcome: String, Sendable, Equatable {
        case test
        case applied
        case duplicate
    }

    let verifier: AppStoreSignedDataVerifier?
    let webhookEvents: WebhookEvents
    let logger: Logger
    let events: EventQueue
    let durations: ProductDurations

    public init(
        verifier: AppStoreSignedDataVerifier?, database: Database, logger: Logger, durations: ProductDurations = ProductDurations(days: [:]),
        events: EventQueue = .disabled
    ) {
        self.durations = durations
        self.verifier = verifier
        webhookEvents = WebhookEvents(database: database, source: "apple")
        self.logger = logger
        self.events = events
    }

    /// - Throws: `UseCaseError` (`not_configured`; `bad_request` for a payload that does not
    ///   verify or has no `notificationUUID`), `StorageError`.
    public func apply(signedPayload: String, now: Date) async throws -> Outcome {
        guard let verifier else { throw StoreErrors.notConfigured(StoreClients.Missing.appleVerifier) }
        let notification: AppStoreNotification
        let verified: PurchaseSnapshot?
        do {
            notification = try verifier.verifyNotification(signedPayload, now: now)
            verified = try notification.snapshot(now: now)
        } catch let error as AppStoreVerificationError {
            logger.warning("apple_notification_rejected", [("reason", .string(error.description))])
            throw UseCaseError.badRequest("The notification does not verify: \(error.description)")
        }
        let snapshot: PurchaseSnapshot?
        do {
            snapshot = try verified.map { try durations.applied(to: $0, now: now) }
        } catch let missing as ProductDurations.Missing {
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
        let applied = try await webhookEvents.record(uuid, type: type, now: now) { connection in
            guard let snapshot else { return }
            let result = try PurchaseRepository.apply(snapshot, on: connection, now: now)
            try events.purchaseApplied(result, on: connection, now: now)
            try PurchaseClaim.linkByOwnerHint(result.purchase, events: events, on: connection, now: now)
        }
        logger.info("apple_notification", [
            ("uuid", .string(uuid)), ("type", .string(type)), ("duplicate", .bool(!applied)), ("changes_state", .bool(snapshot != nil)),
        ])
        return applied ? .applied : .duplicate
    }
}
