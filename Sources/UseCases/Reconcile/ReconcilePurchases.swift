import Domain
import Foundation
import Logging
import Storage

/// Keeps purchases true when a notification never arrived (API.md "Purchases stay true"): for each
/// configured provider, reads its catch-up APIs from a stored cursor and applies what was missed
/// through the same use cases as the webhooks, and asks the store again about subscriptions whose
/// period ended without news. Safe on any number of instances: a provider's run is claimed in the
/// database (a lease) and what it applies is deduplicated, so a second run, here or elsewhere,
/// changes nothing. Run by `ReconcileWorker` every `reconcile.interval_seconds` and by
/// `tollgate reconcile`.
public struct ReconcilePurchases: Sendable {
    /// What one provider's run did.
    public struct ProviderReport: Sendable, Equatable {
        public var provider: String
        /// `ok`, `unavailable`, `failed`, or `busy` (another instance holds the run).
        public var outcome: String
        public var checked: Int
        public var changes: Int
        public var error: String?
    }

    let database: Database
    let reconcilers: [any ProviderReconciler]
    let limits: ReconcileLimits
    let logger: Logger
    let now: @Sendable () -> Date
    /// This process's name in the ledger's leases.
    let instance: String
    /// What the runs of this process found, for `/metrics`.
    public let stats: ReconcileStats

    init(
        database: Database, reconcilers: [any ProviderReconciler], limits: ReconcileLimits, logger: Logger, now: @escaping @Sendable () -> Date,
        stats: ReconcileStats
    ) {
        self.database = database
        self.reconcilers = reconcilers
        self.limits = limits
        self.logger = logger
        self.now = now
        self.stats = stats
        instance = (try? EntityID.make("rci")) ?? "rci_\(UInt64.random(in: 1...UInt64.max))"
    }

    /// The providers this instance reconciles (those configured).
    public var providers: [String] { reconcilers.map(\.provider) }

    /// One run over every configured provider, in turn. `since` reads from that time instead of
    /// the stored cursors (`tollgate reconcile --since 72h`).
    /// - Returns: what each provider's run did; a provider whose run another instance holds is `busy`.
    @discardableResult
    public func run(since: Date? = nil) async -> [ProviderReport] {
        var reports: [ProviderReport] = []
        for reconciler in reconcilers {
            reports.append(await run(reconciler, since: since))
        }
        return reports
    }

    private func run(_ reconciler: any ProviderReconciler, since: Date?) async -> ProviderReport {
        let provider = reconciler.provider
        let started = now()
        let instance = self.instance
        let until = started.addingTimeInterval(limits.lease)
        let claimed: (taken: Bool, entry: ReconcileLedger.Entry?)
        do {
            claimed = try await database.write { connection in
                guard try ReconcileLedger.claim(provider: provider, instance: instance, until: until, now: started, on: connection) else {
                    return (false, nil)
                }
                return (true, try ReconcileLedger.entry(provider, on: connection))
            }
        } catch {
            logger.error("reconcile_failed", [("provider", .string(provider)), ("error", .string("\(error)"))])
            return ProviderReport(provider: provider, outcome: ReconcileLedger.RunRecord.failed, checked: 0, changes: 0, error: "\(error)")
        }
        guard claimed.taken else { return ProviderReport(provider: provider, outcome: "busy", checked: 0, changes: 0, error: nil) }
        let entry = claimed.entry
        let record = await reconciler.reconcile(from: entry, since: since, now: started)
        let finished = now()
        do {
            try await database.write { try ReconcileLedger.finish(provider: provider, instance: instance, record, now: finished, on: $0) }
        } catch {
            logger.error("reconcile_failed", [("provider", .string(provider)), ("error", .string("\(error)"))])
        }
        stats.record(provider: provider, record, cursorAt: record.cursorAt ?? entry?.cursorAt, at: finished)
        logger.info(
            "reconcile_run",
            [
                ("provider", .string(provider)), ("outcome", .string(record.outcome)), ("checked", .int(record.checked)),
                ("changes", .int(record.changes)), ("seconds", .double(finished.timeIntervalSince(started)))
            ])
        return ProviderReport(provider: provider, outcome: record.outcome, checked: record.checked, changes: record.changes, error: record.error)
    }

    /// A configured provider and its ledger row (nil before its first run).
    public struct ProviderStatus: Sendable {
        public let provider: String
        public let entry: ReconcileLedger.Entry?
    }

    /// Every configured provider's cursor, lease and last runs (`GET /admin/v1/reconcile`).
    /// - Throws: `StorageError`.
    public func status() async throws -> [ProviderStatus] {
        let entries = try await database.read { try ReconcileLedger.entries(on: $0) }
        return providers.map { provider in ProviderStatus(provider: provider, entry: entries.first { $0.provider == provider }) }
    }
}
