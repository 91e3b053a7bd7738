import Domain
import Foundation
import Integrations
import Logging
import Storage

/// Google Play's catch-up: `purchases.voidedpurchases.list` from the cursor (refunds and
/// chargebacks, applied by `ApplyPlayVoid` as the RTDN is), then every Play subscription whose
/// expiry passed without news re-read with `subscriptionsv2.get` (`refreshSubscription`, as a
/// subscription RTDN is). Google lists voids of the last 30 days only; a window with more than
/// `maxEvents` voids is finished at the next run from its stored page token.
struct ReconcilePlay: ProviderReconciler {
    let client: GooglePlayClient
    let notifications: ApplyGoogleNotification
    let voids: ApplyPlayVoid
    let database: Database
    let limits: ReconcileLimits
    let logger: Logger

    var provider: String { Platform.playStore.rawValue }

    /// How far back Google lists voided purchases.
    static let retention: TimeInterval = 30 * 86_400

    func reconcile(from entry: ReconcileLedger.Entry?, since: Date?, now: Date) async -> ReconcileLedger.RunRecord {
        var window = CatchUpWindow(from: entry, since: since, now: now, keptFor: Self.retention, limits: limits)
        var checked = 0
        var changes = 0
        let voids = self.voids
        do {
            repeat {
                let page = try await client.voidedPurchases(startTime: window.start, endTime: window.end, pageToken: window.token)
                for voided in page.voidedPurchases {
                    let applied = try await database.write { connection in
                        try voids.apply(
                            purchaseToken: voided.purchaseToken, orderID: voided.orderID, voidedAt: voided.voidedTime,
                            refundType: voided.refundType, now: now, on: connection)
                    }
                    checked += 1
                    if applied != nil {
                        changes += 1
                        logger.info("reconcile_change", [("provider", .string(provider)), ("order_id", .string(voided.orderID ?? ""))])
                    }
                }
                window.token = page.nextPageToken
            } while window.token != nil && checked < limits.maxEvents
        } catch {
            logger.warning("reconcile_unavailable", [("provider", .string(provider)), ("error", .string("\(error)"))])
            return window.unavailable(error, checked: checked, changes: changes)
        }
        let notifications = self.notifications
        let lapsed = await ReconcileLapsed(platform: .playStore, database: database, limits: limits, logger: logger).run(now: now) { purchase in
            try await notifications.refreshSubscription(purchaseToken: purchase.externalID)?.stateChanged ?? false
        }
        return window.record(checked: checked, changes: changes, then: lapsed, overlap: limits.overlap)
    }
}
