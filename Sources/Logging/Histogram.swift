/// Counts of observed durations by upper bound, as a Prometheus histogram keeps them: per-bucket
/// counts (made cumulative when written), the number of observations and their sum. A value type:
/// callers keep it behind their own lock.
public struct Histogram: Sendable, Equatable {
    /// Bucket upper bounds for request-sized durations, in seconds: 0.5 ms to 10 s.
    public static let requestSeconds: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    /// Upper bounds of the buckets, ascending; the `+Inf` bucket is implied.
    public let bounds: [Double]
    /// Observations per bucket (not cumulative); those above the last bound are only in `count`.
    public private(set) var bucketCounts: [Int]
    /// Observations so far.
    public private(set) var count = 0
    /// Sum of the observed values.
    public private(set) var sum = 0.0

    /// An empty histogram with `bounds` (ascending).
    public init(bounds: [Double] = Histogram.requestSeconds) {
        self.bounds = bounds
        bucketCounts = [Int](repeating: 0, count: bounds.count)
    }

    /// Adds one observation.
    public mutating func observe(_ value: Double) {
        if let bucket = bounds.firstIndex(where: { value <= $0 }) { bucketCounts[bucket] += 1 }
        count += 1
        sum += value
    }
}
