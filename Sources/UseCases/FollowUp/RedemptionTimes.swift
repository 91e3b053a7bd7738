import Logging
import Synchronization

/// The histogram `tollgate_time_to_redeem_seconds`: seconds from payment to a web purchase's
/// first redemption or link, each observed once (by the instance that took it: `FunnelReport`).
public final class RedemptionTimes: Sendable {
    /// The buckets' upper bounds: 1 min, 5 min, 15 min, 1 h, 6 h, 24 h, 72 h.
    public static let bounds: [Double] = [60, 300, 900, 3600, 21_600, 86_400, 259_200]

    private let histogram = Mutex(Histogram(bounds: RedemptionTimes.bounds))

    public init() {}

    /// Adds the observations.
    public func observe(_ seconds: [Double]) {
        guard !seconds.isEmpty else { return }
        histogram.withLock { histogram in
            for value in seconds { histogram.observe(value) }
        }
    }

    /// The histogram so far.
    public func snapshot() -> Histogram { histogram.withLock { $0 } }
}
