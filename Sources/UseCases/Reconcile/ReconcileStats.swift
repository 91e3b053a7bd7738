import Domain
import Foundation
import Synchronization

/// What this process's reconcile runs found, per provider, for `/metrics`
/// (`tollgate_reconcile_*`): runs by outcome, purchases and events checked, changes found, and the
/// time the cursor had reached at the last run (its lag behind now).
public final class ReconcileStats: Sendable {
    /// One provider's figures.
    public struct Provider: Sendable, Equatable {
        public var runs: [String: Int] = [:]
        public var checked = 0
        public var changes = 0
        public var cursorAt: Date?
        public var lastRunAt: Date?
    }

    private let state = Mutex<[String: Provider]>([:])

    public init() {}

    func record(provider: String, _ run: ReconcileLedger.RunRecord, cursorAt: Date?, at date: Date) {
        state.withLock { providers in
            var figures = providers[provider] ?? Provider()
            figures.runs[run.outcome, default: 0] += 1
            figures.checked += run.checked
            figures.changes += run.changes
            figures.cursorAt = cursorAt ?? figures.cursorAt
            figures.lastRunAt = date
            providers[provider] = figures
        }
    }

    /// The figures so far, by provider.
    public func snapshot() -> [String: Provider] { state.withLock { $0 } }
}
