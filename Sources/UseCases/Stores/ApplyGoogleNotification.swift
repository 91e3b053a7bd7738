import Crypto
import Domain
import Foundation
import Integrations
import Logging
import Storage

/// Google Play real-time developer notifications (`POST /webhooks/google?token=`), as Pub/Sub
/// pushes them.
///
/// - The `token` must equal `google.rtdn_token` (constant-time); a wrong or missing token or a
///   body that is not an RTDN is refused with nothing stored.
/// - Verified but unusable, accepted with nothing stored (a refusal would make Pub/Sub retry for
///   days): another app's `packageName` (logged at warning) and test notifications.
///   A `messageId` already recorded is a duplicate.
/// - The notification is only a hint: the purchase is re-read from the Play Developer API
///   (`subscriptionsv2`, or `products/{sku}` for one-time products) and that state applied.
///   A voided purchase becomes `refunded` at the notification's `eventTimeMillis`
///   (`ApplyPlayVoid`; a partial, quantity-based refund changes nothing), and stays so.
/// - Google unreachable → `unavailable` before anything is written; Pub/Sub redelivers.
/// - Acknowledgement, in this order: the state is stored; then the acknowledgement is sent; then
///   the `messageId` is recorded. A failure or crash between the steps leaves the message
///   unrecorded, so its redelivery re-reads Google, which says whether the acknowledgement is
///   still pending: it is sent once, and the purchase row (keyed by token) is never doubled.
///   When nothing needs acknowledging, the state and the `messageId` are one transaction.
public struct ApplyGoogleNotification: Sendable {
    /// What became of a notification.
    public enum Outcome: String, Sendable {
        case test, applied, duplicate, ignored
    }

    let rtdnToken: String?
    let packageName: String?
    let verifier: StorePurchaseVerifier
    let database: Database
    let webhookEvents: WebhookEvents
    let logger: Logger
    let now: @Sendable () -> Date
    let events: EventQueue

    public init(
        rtdnToken: String?, packageName: String?, verifier: StorePurchaseVerifier, database: Database, logger: Logger,
        now: @escaping @Sendable () -> Date, events: EventQueue = .disabled
    ) {
        self.events = events
        self.rtdnToken = rtdnToken
        self.packageName = packageName
        self.verifier = verifier
        self.database = database
        webhookEvents = WebhookEvents(database: database, source: "google")
        self.logger = logger
        self.now = now
    }

    /// Checks the push URL's token and the body, then applies the notification.
    /// - Returns: `.ignored` for another app's notification (nothing stored), `.test` for a test.
    /// - Throws: `UseCaseError` (`not_configured`; `bad_request` for a wrong token or a body that
    ///   is not a Play notification; `unavailable` when Google cannot be read), `StorageError`.
    public func apply(token: String?, pushBody: [UInt8]) async throws -> Outcome {
        guard let expected = rtdnToken, let packageName else { throw StoreErrors.notConfigured(StoreClients.Missing.rtdn) }
        guard let token, ConstantTime.equals(Array(token.utf8), Array(expected.utf8)) else {
            logger.warning("google_notification_rejected", [("reason", .string("token"))])
            throw UseCaseError.badRequest("The push URL's token is missing or wrong.")
        }
        let notification: GooglePlayNotification
        do {
            notification = try GooglePlayNotification(pushBody: pushBody)
        } catch let error as GooglePlayError {
            throw UseCaseError.badRequest("The body is not a Play notification: \(error.message)")
        }
        guard notification.packageName == packageName else {
            logger.warning(
                "google_notification_ignored",
                [
                    ("reason", .string("package")), ("package", .string(String(notification.packageName.prefix(200)))),
                    ("message_id", .string(notification.messageID))
                ])
            return .ignored
        }
        if case .test = notification.event {
            logger.info("google_notification_test", [("message_id", .string(notification.messageID))])
            return .test
        }
        let outcome: Outcome
        do {
            outcome = try await apply(notification)
        } catch let error as UpstreamError {
            logger.warning("google_notification_deferred", [("message_id", .string(notification.messageID)), ("reason", .string(error.description))])
            throw UseCaseError.unavailable("Google Play could not be read; retry later.")
        } catch let error as GooglePlayError where error.isConfigurationError {
            logger.error("google_notification_deferred", [("message_id", .string(notification.messageID)), ("reason", .string(error.description))])
            throw StoreErrors.notConfigured("Google Play refused this server's access (google.service_account_path, Play Console API access).")
        }
        logger.info("google_notification", [("message_id", .string(notification.messageID)), ("outcome", .string(outcome.rawValue))])
        return outcome
    }

    /// - Throws: `UpstreamError` (nothing written, or the state written but the message left
    ///   unrecorded for redelivery), `GooglePlayError` for configuration problems, `StorageError`.
    private func apply(_ notification: GooglePlayNotification) async throws -> Outcome {
        let id = notification.messageID
        let type = Self.typeName(notification.event)
        if try await webhookEvents.seen(id) { return .duplicate }
        guard verifier.stores.googlePlay != nil else { throw StoreErrors.notConfigured(StoreClients.Missing.googlePlay) }
        let now = self.now()
        let verified: VerifiedStorePurchase
        do {
            switch notification.event {
            case .subscription(let event):
                verified = try await verifier.playSubscription(purchaseToken: event.purchaseToken, expectedProductID: nil)
            case .oneTimeProduct(let event):
                guard let sku = try await productID(event.sku, token: event.purchaseToken) else {
                    return try await recordOnly(id, type: type, outcome: .ignored)
                }
                verified = try await verifier.playProduct(purchaseToken: event.purchaseToken, productID: sku)
            case .voidedPurchase(let event):
                return try await void(event, notification: notification, type: type)
            case .test, .unsupported:
                return try await recordOnly(id, type: type, outcome: .ignored)
            }
        } catch let error as GooglePlayError where !error.isConfigurationError {
            // Google does not know the token (too old, another app): redelivery cannot help.
            logger.warning("google_notification_unknown_purchase", [("message_id", .string(id)), ("reason", .string(error.description))])
            return try await recordOnly(id, type: type, outcome: .ignored)
        }
        let events = self.events
        guard let acknowledgement = verified.acknowledgement else {
            return try await webhookEvents.record(id, type: type, now: now) { connection in
                try Self.store(verified.snapshot, events: events, on: connection, now: now)
            } ? .applied : .duplicate
        }
        _ = try await database.write { try Self.store(verified.snapshot, events: events, on: $0, now: now) }
        try await verifier.acknowledge(acknowledgement)
        return try await recordOnly(id, type: type, outcome: .applied)
    }

    /// A voided purchase, applied with the message's record in one transaction (`ApplyPlayVoid`).
    private func void(_ event: GooglePlayNotification.VoidedPurchase, notification: GooglePlayNotification, type: String) async throws -> Outcome {
        let now = self.now()
        let void = ApplyPlayVoid(events: events)
        return try await database.write { connection in
            guard try WebhookEventLog.record(source: "google", eventID: notification.messageID, type: type, on: connection, now: now) else {
                return .duplicate
            }
            let applied = try void.apply(
                purchaseToken: event.purchaseToken, orderID: event.orderID, voidedAt: notification.eventTime, refundType: event.refundType,
                now: now, on: connection)
            return applied == nil ? .ignored : .applied
        }
    }

    /// The sku of a one-time product notification, else the product of the stored purchase.
    private func productID(_ sku: String?, token: String) async throws -> String? {
        if let sku, !sku.isEmpty { return sku }
        return try await database.read { try PurchaseRepository.find(platform: .playStore, reference: token, on: $0)?.productID }
    }

    /// Stores a state read from Google: kept `refunded` after a void (`ApplyPlayVoid.keepingVoid`),
    /// its events, and the link to the account the app named at purchase.
    @discardableResult
    static func store(_ snapshot: PurchaseSnapshot, events: EventQueue, on connection: Connection, now: Date) throws -> PurchaseRepository.Applied {
        let applied = try PurchaseRepository.apply(try ApplyPlayVoid.keepingVoid(snapshot, on: connection), on: connection, now: now)
        try events.purchaseApplied(applied, on: connection, now: now)
        try PurchaseClaim.linkByOwnerHint(applied.purchase, events: events, on: connection, now: now)
        return applied
    }

    private func recordOnly(_ id: String, type: String, outcome: Outcome) async throws -> Outcome {
        try await webhookEvents.record(id, type: type, now: now()) { _ in } ? outcome : .duplicate
    }

    private static func typeName(_ event: GooglePlayNotification.Event) -> String {
        switch event {
        case .subscription(let value): "subscription/\(value.type.name)"
        case .oneTimeProduct(let value): "one_time_product/\(value.type)"
        case .voidedPurchase: "voided_purchase"
        case .test: "test"
        case .unsupported: "unsupported"
        }
    }
}
