#if canImport(Glibc)
    import Glibc
#endif
import Logging
import Synchronization

/// Where the single writer's callers spend their time, to find what holds the slow ones: the wait
/// in the writer's queue before their group's transaction starts, that transaction (every write
/// of the group and its COMMIT), and the hop back from the commit to the caller running again.
/// A debug measure: kept only when `TOLLGATE_DEBUG_WRITE_WAITS=1` is set as the database opens
/// (otherwise nothing is timed), and logged as `storage.write_waits` when it closes.
final class WriteWaits: Sendable {
    /// Bucket bounds in seconds: 50 µs to 250 ms.
    static let bounds: [Double] = [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25]

    private struct Stages {
        var queued = Histogram(bounds: WriteWaits.bounds)
        var transaction = Histogram(bounds: WriteWaits.bounds)
        var resumed = Histogram(bounds: WriteWaits.bounds)
        var groupSizes = Histogram(bounds: [1, 2, 4, 8, 16, 32, 64, 128, 256])
    }

    private let stages = Mutex(Stages())

    /// A recorder when the environment asks for one, else nil.
    static func fromEnvironment() -> WriteWaits? {
        guard let value = getenv("TOLLGATE_DEBUG_WRITE_WAITS"), String(cString: value) == "1" else { return nil }
        return WriteWaits()
    }

    /// One write's stages on the writer's queue, from its clock.
    func record(_ clock: WriteClock) {
        let queued = Self.seconds(clock.startedAt &- clock.enqueuedAt)
        let transaction = Self.seconds(clock.finishedAt &- clock.startedAt)
        stages.withLock {
            $0.queued.observe(queued)
            $0.transaction.observe(transaction)
        }
    }

    /// The hop from the commit back to the caller.
    func record(resumedAfter nanoseconds: UInt64) {
        let seconds = Self.seconds(nanoseconds)
        stages.withLock { $0.resumed.observe(seconds) }
    }

    /// How many writes one group commit applied.
    func record(groupSize: Int) {
        stages.withLock { $0.groupSizes.observe(Double(groupSize)) }
    }

    /// Logs each stage's buckets (count at or below each bound, not cumulative), count and mean.
    func log(to logger: Logger) {
        let snapshot = stages.withLock { $0 }
        logger.info(
            "storage.write_waits",
            [
                ("queued", .string(Self.describe(snapshot.queued))), ("transaction", .string(Self.describe(snapshot.transaction))),
                ("resumed", .string(Self.describe(snapshot.resumed))), ("group_sizes", .string(Self.describe(snapshot.groupSizes)))
            ])
    }

    private static func seconds(_ nanoseconds: UInt64) -> Double { Double(nanoseconds) / 1e9 }

    private static func describe(_ histogram: Histogram) -> String {
        var parts = zip(histogram.bounds, histogram.bucketCounts).map { "le \($0): \($1)" }
        parts.append("above: \(histogram.count - histogram.bucketCounts.reduce(0, +))")
        parts.append("count: \(histogram.count)")
        parts.append("mean: \(histogram.count == 0 ? 0 : histogram.sum / Double(histogram.count))")
        return parts.joined(separator: ", ")
    }
}

/// One write's times (`MonotonicClock` nanoseconds) while `WriteWaits` records.
/// `@unchecked Sendable`: the caller sets `enqueuedAt` before queueing the write, the writer's
/// queue sets the rest before resuming the caller, which reads `finishedAt` only after it resumed.
final class WriteClock: @unchecked Sendable {
    let enqueuedAt: UInt64
    var startedAt: UInt64 = 0
    var finishedAt: UInt64 = 0

    init(enqueuedAt: UInt64) {
        self.enqueuedAt = enqueuedAt
    }
}
