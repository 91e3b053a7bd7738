import Crypto
import Domain
import Foundation
import HTTPServer
import Integrations
import Storage

/// `POST /webhooks/google?token=...`: Pub/Sub pushes of Google Play real-time developer
/// notifications.
///
/// - The `token` must equal `google.rtdn_token` (constant-time); a wrong or missing token, a body
///   that is not an RTDN, or another app's `packageName` is `400` with nothing stored.
/// - A test notification is `200`, nothing stored. A `messageId` already recorded is `200`.
/// - The notification is only a hint: the purchase is re-read from the Play Developer API
///   (`subscriptionsv2`, or `products/{sku}` for one-time products) and that state applied.
///   A voided purchase becomes `revoked` (a partial, quantity-based refund changes nothing).
/// - Google unreachable → `503` before anything is written; Pub/Sub redelivers.
/// - Acknowledgement, in this order: the state is stored; then the acknowledgement is sent; then
///   the `messageId` is recorded. A failure or crash between the steps leaves the message
///   unrecorded, so its redelivery re-reads Google, which says whether the acknowledgement is
///   still pending: it is sent once, and the purchase row (keyed by token) is never doubled.
///   When nothing needs acknowledging, the state and the `messageId` are one transaction.
struct GoogleWebhookRoute {
    let services: AppServices

    func register(on router: inout Router) {
        router.add(.post, "/webhooks/google", maxBodyBytes: 64 * 1024) { [services] request, context in
            guard let expected = services.config.google.rtdnToken, let packageName = services.config.app.android.packageName else {
                throw StoreErrors.notConfigured(StoreClients.Missing.rtdn)
            }
            guard let sent = request.queryParameter("token"), ConstantTime.equals(Array(sent.utf8), Array(expected.utf8)) else {
                context.logger.warning("google_notification_rejected", [("reason", .string("token"))])
                throw APIError.badRequest("The push URL's token is missing or wrong.")
            }
            let notification: GooglePlayNotification
            do {
                notification = try GooglePlayNotification(pushBody: request.body)
            } catch let error as GooglePlayError {
                throw APIError.badRequest("The body is not a Play notification: \(error.message)")
            }
            guard notification.packageName == packageName else {
                context.logger.warning("google_notification_rejected", [("reason", .string("package")), ("package", .string(notification.packageName))])
                throw APIError.badRequest("The notification is for another app (\(notification.packageName)).")
            }
            if case .test = notification.event {
                context.logger.info("google_notification_test", [("message_id", .string(notification.messageID))])
                return .json { json in
                    json.bool("received", true)
                    json.bool("test", true)
                }
            }
            let sync = GoogleNotificationSync(services: services)
            let outcome: GoogleNotificationSync.Outcome
            do {
                outcome = try await sync.apply(notification)
            } catch let error as UpstreamError {
                context.logger.warning("google_notification_deferred", [("message_id", .string(notification.messageID)), ("reason", .string(error.description))])
                throw APIError(status: .serviceUnavailable, code: "upstream_unavailable", message: "Google Play could not be read; retry later.")
            } catch let error as GooglePlayError where error.isConfigurationError {
                context.logger.error("google_notification_deferred", [("message_id", .string(notification.messageID)), ("reason", .string(error.description))])
                throw StoreErrors.notConfigured("Google Play refused this server's access (google.service_account_path, Play Console API access).")
            }
            context.logger.info("google_notification", [
                ("message_id", .string(notification.messageID)), ("outcome", .string(outcome.rawValue)),
            ])
            return .json { json in
                json.bool("received", true)
                json.bool("duplicate", outcome == .duplicate)
            }
        }
    }
}

/// Applies one verified RTDN (see `GoogleWebhookRoute` for the order of effects).
struct GoogleNotificationSync {
    let services: AppServices

    enum Outcome: String {
        case applied, duplicate, ignored
    }

    /// - Throws: `UpstreamError` (nothing written, or the state written but the message left
    ///   unrecorded for redelivery), `GooglePlayError` for configuration problems, `StorageError`.
    func apply(_ notification: GooglePlayNotification) async throws -> Outcome {
        let id = notification.messageID
        let type = Self.typeName(notification.event)
        if try await isRecorded(id) { return .duplicate }
        guard services.stores.googlePlay != nil else { throw StoreErrors.notConfigured(StoreClients.Missing.googlePlay) }
        let verifier = StorePurchaseVerifier(services: services)
        let now = services.now()
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
            services.logger.warning("google_notification_unknown_purchase", [("message_id", .string(id)), ("reason", .string(error.description))])
            return try await recordOnly(id, type: type, outcome: .ignored)
        }
        guard let acknowledgement = verified.acknowledgement else {
            return try await services.database.write { connection in
                guard try WebhookEventLog.record(source: "google", eventID: id, type: type, on: connection, now: now) else { return .duplicate }
                try Self.store(verified.snapshot, on: connection, now: now)
                return .applied
            }
        }
        try await services.database.write { try Self.store(verified.snapshot, on: $0, now: now) }
        try await verifier.acknowledge(acknowledgement)
        return try await recordOnly(id, type: type, outcome: .applied)
    }

    /// A voided purchase: the stored purchase becomes `revoked`, at the void's event time or
    /// later (a void is final: no earlier-stamped state may undo it).
    private func void(_ event: GooglePlayNotification.VoidedPurchase, notification: GooglePlayNotification, type: String) async throws -> Outcome {
        let now = services.now()
        return try await services.database.write { connection in
            guard try WebhookEventLog.record(source: "google", eventID: notification.messageID, type: type, on: connection, now: now) else {
                return .duplicate
            }
            guard event.refundType != 2, let purchase = try PurchaseRepository.find(platform: .playStore, reference: event.purchaseToken, on: connection) else {
                return .ignored
            }
            let revoked = PurchaseSnapshot(
                platform: .playStore, externalID: purchase.externalID, productID: purchase.productID, status: .revoked,
                expiresAt: purchase.expiresAt, environment: purchase.environment,
                observedAt: max(notification.eventTime, purchase.observedAt), transactionID: event.orderID)
            _ = try PurchaseRepository.apply(revoked, on: connection, now: now)
            return .applied
        }
    }

    /// The sku of a one-time product notification, else the product of the stored purchase.
    private func productID(_ sku: String?, token: String) async throws -> String? {
        if let sku, !sku.isEmpty { return sku }
        return try await services.database.read { try PurchaseRepository.find(platform: .playStore, reference: token, on: $0)?.productID }
    }

    private static func store(_ snapshot: PurchaseSnapshot, on connection: Connection, now: Date) throws {
        let applied = try PurchaseRepository.apply(snapshot, on: connection, now: now)
        try PurchaseClaim.linkByOwnerHint(applied.purchase, on: connection, now: now)
    }

    private func recordOnly(_ id: String, type: String, outcome: Outcome) async throws -> Outcome {
        let now = services.now()
        return try await services.database.write { connection in
            try WebhookEventLog.record(source: "google", eventID: id, type: type, on: connection, now: now) ? outcome : .duplicate
        }
    }

    private func isRecorded(_ id: String) async throws -> Bool {
        try await services.database.read { connection in
            try connection.queryOne("SELECT 1 AS seen FROM webhook_events WHERE source = 'google' AND event_id = ?", [id]) != nil
        }
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
