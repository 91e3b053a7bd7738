import Domain
import Foundation
import Integrations
import Logging
import Storage

/// The App Store's catch-up: Get Notification History from the cursor (each notification
/// verified and applied by `ApplyAppleNotification` as if it had been pushed; one already
/// received is a duplicate), then every App Store subscription whose period ended without news
/// asked once with Get All Subscription Statuses (`appStoreSubscription`). Apple keeps 180 days
/// of history; a window with more than `maxEvents` notifications is finished at the next run
/// from its stored pagination token.
struct ReconcileAppStore: ProviderReconciler {
    let api: AppStoreServerAPIClient
    let notifications: ApplyAppleNotification
    let verifier: StorePurchaseVerifier
    let database: Database
    let limits: ReconcileLimits
    let logger: Logger

    var provider: String { Platform.appStore.rawValue }

    /// How far back Get Notification History reaches.
    static let retention: TimeInterval = 180 * 86_400

    func reconcile(from entry: ReconcileLedger.Entry?, since: Date?, now: Date) async -> ReconcileLedger.RunRecord {
        var window = CatchUpWindow(from: entry, since: since, now: now, keptFor: Self.retention, limits: limits)
        var checked = 0
        var changes = 0
        do {
            repeat {
                let page = try await api.notificationHistory(startDate: window.start, endDate: window.end, paginationToken: window.token)
                for payload in page.signedPayloads {
                    checked += 1
                    do {
                        if try await notifications.apply(signedPayload: payload, now: now) == .applied { changes += 1 }
                    } catch let error as UseCaseError where error.kind == .badRequest {
                        // Does not verify: Apple's own history never sends such a one; log and go on.
                        logger.warning("reconcile_notification_rejected", [("provider", .string(provider)), ("reason", .string(error.message))])
                    }
                }
                window.token = page.hasMore ? page.paginationToken : nil
            } while window.token != nil && checked < limits.maxEvents
        } catch {
            logger.warning("reconcile_unavailable", [("provider", .string(provider)), ("error", .string("\(error)"))])
            return window.unavailable(error, checked: checked, changes: changes)
        }
        let verifier = self.verifier
        let lapsed = await ReconcileLapsed(platform: .appStore, database: database, limits: limits, logger: logger).run(now: now) { purchase in
            let present: VerifiedStorePurchase
            do {
                present = try await verifier.appStoreSubscription(originalTransactionID: purchase.externalID)
            } catch let error as UseCaseError where error.kind == .unprocessable {
                // Apple no longer knows it (or it is no subscription): nothing to correct.
                return false
            }
            return try await verifier.record(present) { _, applied in applied.stateChanged }
        }
        return window.record(checked: checked, changes: changes, then: lapsed, overlap: limits.overlap)
    }
}
