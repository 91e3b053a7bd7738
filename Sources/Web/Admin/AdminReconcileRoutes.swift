import Domain
import Foundation
import HTTPCore
import HTTPRouting
import UseCases

/// `GET /admin/v1/reconcile`: the reconciler as operators see it: the interval, and for each
/// configured provider its cursor, whether a run holds it now, and what the runs found.
struct AdminReconcileRoutes {
    /// Nil when no provider is configured.
    let reconcile: ReconcilePurchases?
    let intervalSeconds: Int
    let now: @Sendable () -> Date

    func add(to group: inout RouteGroup) {
        group.add(.get, "/admin/v1/reconcile") { [reconcile, intervalSeconds, now] _, _ in
            let providers = try await reconcile?.status() ?? []
            let now = now()
            return .json { json in
                json.bool("enabled", intervalSeconds > 0)
                json.int("interval_seconds", intervalSeconds)
                json.array("providers", providers) { json, status in
                    json.object { item in Self.write(status, now: now, into: &item) }
                }
            }
        }
    }

    static func write(_ status: ReconcilePurchases.ProviderStatus, now: Date, into item: inout JSONWriter) {
        let entry = status.entry
        item.string("provider", status.provider)
        item.string("cursor", entry?.cursorAt.map(Timestamp.rfc3339))
        item.bool("running", entry?.claimedUntil.map { $0 > now } ?? false)
        item.string("last_run_at", entry?.lastRunAt.map(Timestamp.rfc3339))
        item.string("last_outcome", entry?.lastOutcome)
        item.string("last_error", entry?.lastError)
        item.int("last_checked", entry?.lastChecked ?? 0)
        item.int("last_changes", entry?.lastChanges ?? 0)
        item.int("runs", entry?.runs ?? 0)
        item.int("checked_total", entry?.checkedTotal ?? 0)
        item.int("changes_total", entry?.changesTotal ?? 0)
    }
}
