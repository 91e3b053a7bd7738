import Domain
import Foundation
import HTTPServer
import Integrations

/// `POST /webhooks/apple`: App Store Server Notifications V2 `{"signedPayload": "..."}`.
///
/// The payload is verified (chain to a configured root, signature, bundle id, app Apple id,
/// environment) before anything else; a failure is `400` naming the kind (`invalid_certificate`,
/// `wrong_environment`, ...) with nothing stored. `TEST` is `200` and stores nothing. Otherwise
/// the notification is recorded under its `notificationUUID` in the same transaction as its
/// effect, so a repeat is `200` doing nothing. The snapshot's `observedAt` is the notification's
/// `signedDate`: a notification older than the state already applied changes nothing, so late
/// arrivals never move a purchase back. An unlinked purchase whose `appAccountToken` is one of
/// our accounts' obfuscated ids is linked to that account. `200` is answered only once stored.
struct AppleWebhookRoute {
    let services: AppServices

    private struct Body: Decodable {
        let signedPayload: String
    }

    func register(on router: inout Router) {
        router.add(.post, "/webhooks/apple", maxBodyBytes: 256 * 1024) { [services] request, context in
            guard let verifier = services.stores.appleVerifier else {
                throw StoreErrors.notConfigured(StoreClients.Missing.appleVerifier)
            }
            let body = try request.decodeJSON(Body.self)
            let now = services.now()
            let notification: AppStoreNotification
            let snapshot: PurchaseSnapshot?
            do {
                notification = try verifier.verifyNotification(body.signedPayload, now: now)
                snapshot = try notification.snapshot(now: now)
            } catch let error as AppStoreVerificationError {
                context.logger.warning("apple_notification_rejected", [("reason", .string(error.description))])
                throw APIError.badRequest("The notification does not verify: \(error.description)")
            }
            if notification.isTest {
                context.logger.info("apple_notification_test", [("uuid", .string(notification.notificationUUID ?? ""))])
                return .json { json in
                    json.bool("received", true)
                    json.bool("test", true)
                }
            }
            guard let uuid = notification.notificationUUID, !uuid.isEmpty, uuid.utf8.count <= 128 else {
                throw APIError.badRequest("The notification has no notificationUUID.")
            }
            let type = notification.notificationType + (notification.subtype.map { "/" + $0 } ?? "")
            let applied = try await services.database.write { connection -> Bool in
                guard try WebhookEventLog.record(source: "apple", eventID: uuid, type: String(type.prefix(100)), on: connection, now: now) else {
                    return false
                }
                if let snapshot {
                    let result = try PurchaseRepository.apply(snapshot, on: connection, now: now)
                    try PurchaseClaim.linkByOwnerHint(result.purchase, on: connection, now: now)
                }
                return true
            }
            context.logger.info("apple_notification", [
                ("uuid", .string(uuid)), ("type", .string(type)), ("duplicate", .bool(!applied)),
                ("changes_state", .bool(snapshot != nil)),
            ])
            return .json { json in
                json.bool("received", true)
                json.bool("duplicate", !applied)
            }
        }
    }
}
