import Logging
import Synchronization

/// What the delivery worker counted since start, for `/metrics`: attempts by result, and the
/// latency of each endpoint's answers as a histogram.
public final class EventDeliveryStats: Sendable {
    /// Upper bounds of the latency buckets, in seconds.
    public static let latencyBuckets: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    /// One endpoint's figures.
    public struct Endpoint: Sendable, Equatable {
        public var delivered = 0
        /// Attempts that failed (each will be retried, or the delivery failed for good).
        public var failedAttempts = 0
        /// Deliveries given up on (`failed`).
        public var failed = 0
        /// How long the endpoint took to answer.
        public var latency = Histogram(bounds: EventDeliveryStats.latencyBuckets)
    }

    private let state = Mutex<[String: Endpoint]>([:])

    public init() {}

    func record(endpointID: String, delivered: Bool, gaveUp: Bool, seconds: Double) {
        state.withLock { table in
            var endpoint = table[endpointID] ?? Endpoint()
            if delivered { endpoint.delivered += 1 } else { endpoint.failedAttempts += 1 }
            if gaveUp { endpoint.failed += 1 }
            endpoint.latency.observe(seconds)
            table[endpointID] = endpoint
        }
    }

    /// Every endpoint's figures so far, by endpoint id.
    public func snapshot() -> [String: Endpoint] { state.withLock { $0 } }
}
