import Domain
import Foundation

/// One provider's catch-up: given where the last run got to, read what was missed and apply it
/// through the same path as the provider's notifications, within a bounded amount of work.
protocol ProviderReconciler: Sendable {
    /// `stripe`, `app_store` or `play_store` (the ledger's row).
    var provider: String { get }

    /// Reads and applies what was missed since `entry`'s cursor (or `since`, when given) up to
    /// `now`. Never throws: an outage is an `unavailable` record whose cursor stays where it was
    /// (or where the work stopped), so the next run retries it.
    func reconcile(from entry: ReconcileLedger.Entry?, since: Date?, now: Date) async -> ReconcileLedger.RunRecord
}

/// How much a run reads and how far back (`ReconcilePurchases`).
public struct ReconcileLimits: Sendable {
    /// How far back a provider's first run reads when no `--since` is given.
    public var firstLookback: TimeInterval
    /// Each run reads again this much before the cursor: events a provider lists a moment late
    /// are not missed (re-reading costs only the read; applying is deduplicated).
    public var overlap: TimeInterval
    /// At most this many events (Stripe) or notifications (Apple) per run.
    public var maxEvents: Int
    /// At most this many lapsed subscriptions asked per provider and run.
    public var maxLapsed: Int
    /// Subscriptions whose period ended longer ago than this are not asked again.
    public var lapsedLookback: TimeInterval
    /// How long one instance holds a provider's run before another may take it over.
    public var lease: TimeInterval

    public init(
        firstLookback: TimeInterval = 72 * 3600, overlap: TimeInterval = 300, maxEvents: Int = 50_000, maxLapsed: Int = 500,
        lapsedLookback: TimeInterval = 30 * 86_400, lease: TimeInterval = 900
    ) {
        self.firstLookback = firstLookback
        self.overlap = overlap
        self.maxEvents = maxEvents
        self.maxLapsed = maxLapsed
        self.lapsedLookback = lapsedLookback
        self.lease = lease
    }
}

extension ReconcileLedger.RunRecord {
    static let ok = "ok"
    static let unavailable = "unavailable"
    static let failed = "failed"
}
