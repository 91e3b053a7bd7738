import Logging
import Synchronization

/// What retention deleted since start, for `/metrics`: rows per table, and how long each batch's
/// statements took inside its write transaction (the time it kept other writers waiting, less
/// the commit).
public final class RetentionStats: Sendable {
    /// Upper bounds of the batch-duration buckets, in seconds.
    public static let batchBuckets: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25]

    /// The figures at one moment.
    public struct Snapshot: Sendable, Equatable {
        /// Rows deleted per table (`sessions`, `mail_outbox`, ...).
        public var deleted: [String: Int] = [:]
        /// Time each batch spent in its write transaction.
        public var batchSeconds = Histogram(bounds: RetentionStats.batchBuckets)
        /// Passes completed (every table caught up).
        public var passes = 0
    }

    private let state = Mutex(Snapshot())

    public init() {}

    func record(table: String, deleted: Int, seconds: Double) {
        state.withLock { snapshot in
            snapshot.deleted[table, default: 0] += deleted
            snapshot.batchSeconds.observe(seconds)
        }
    }

    func passCompleted() { state.withLock { $0.passes += 1 } }

    /// The figures so far.
    public func snapshot() -> Snapshot { state.withLock { $0 } }
}
