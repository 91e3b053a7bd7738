import Foundation
import Logging
import UseCases

/// `tollgate_reconcile_*` on `/metrics`: this process's reconcile runs by provider and outcome,
/// what they checked and the changes they found, and how far each provider's cursor lags now.
enum ReconcileMetrics {
    static func write(_ stats: ReconcileStats, now: Date, to text: inout PrometheusText) {
        let providers = stats.snapshot().sorted { $0.key < $1.key }
        text.family("tollgate_reconcile_runs_total", .counter, help: "Reconcile runs since start, by provider and outcome.")
        for (provider, figures) in providers {
            for (outcome, count) in figures.runs.sorted(by: { $0.key < $1.key }) {
                text.sample("tollgate_reconcile_runs_total", [("provider", provider), ("outcome", outcome)], count)
            }
        }
        text.family("tollgate_reconcile_checked_total", .counter, help: "Events and purchases the reconciler checked since start.")
        for (provider, figures) in providers { text.sample("tollgate_reconcile_checked_total", [("provider", provider)], figures.checked) }
        text.family("tollgate_reconcile_changes_total", .counter, help: "Missed changes the reconciler found and applied since start.")
        for (provider, figures) in providers { text.sample("tollgate_reconcile_changes_total", [("provider", provider)], figures.changes) }
        text.family("tollgate_reconcile_lag_seconds", .gauge, help: "How far behind now the provider's cursor was after its last run.")
        for (provider, figures) in providers {
            guard let cursor = figures.cursorAt else { continue }
            text.sample("tollgate_reconcile_lag_seconds", [("provider", provider)], max(0, now.timeIntervalSince(cursor)))
        }
    }
}
