import Foundation

/// When a failed delivery is tried again: about 5 s, 30 s, 2 min, 10 min, 1 h, then every 4 h,
/// each wait lengthened or shortened at random by up to `jitter` (so deliveries failing together
/// do not retry together), until the delivery's deadline (3 days after the event) has passed.
public struct EventRetryPolicy: Sendable {
    /// The waits after the first, second... failed attempt.
    public var schedule: [Duration]
    /// The wait after every later failed attempt.
    public var thereafter: Duration
    /// The fraction by which a wait is randomly changed (0 for none).
    public var jitter: Double
    /// A random number in 0..<1 (injected for tests).
    public var random: @Sendable () -> Double

    public init(
        schedule: [Duration] = [.seconds(5), .seconds(30), .seconds(120), .seconds(600), .seconds(3600)],
        thereafter: Duration = .seconds(4 * 3600), jitter: Double = 0.2,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.schedule = schedule
        self.thereafter = thereafter
        self.jitter = jitter
        self.random = random
    }

    /// The wait after the `attempt`-th attempt failed (1-based).
    public func delay(afterAttempt attempt: Int) -> Duration {
        let base = attempt >= 1 && attempt <= schedule.count ? schedule[attempt - 1] : thereafter
        let factor = 1 + jitter * (2 * random() - 1)
        let components = base.components
        let seconds = (Double(components.seconds) + Double(components.attoseconds) / 1e18) * max(0, factor)
        return .milliseconds(Int64(seconds * 1000))
    }

    /// When to try again after the `attempt`-th attempt failed at `now`, or nil (give up: `failed`)
    /// when that would be after `deadline`.
    public func retryAt(afterAttempt attempt: Int, now: Date, deadline: Date) -> Date? {
        let components = delay(afterAttempt: attempt).components
        let next = now.addingTimeInterval(Double(components.seconds) + Double(components.attoseconds) / 1e18)
        return next > deadline ? nil : next
    }
}

/// How the delivery worker works; every value has a production default.
public struct EventDeliveryConfiguration: Sendable {
    /// Deliveries in flight at once per endpoint.
    public var concurrency: Int
    /// The time allowed for one whole attempt.
    public var timeout: Duration
    /// How long a delivery may stay `sending` before another claim takes it (a dead claimer).
    public var lease: TimeInterval
    /// Bytes of an endpoint's answer kept (for `tollgate events test` and the last error).
    public var maxResponseBytes: Int
    /// The longest sleep without a wake-up (a safety net: `EventQueue` wakes the worker).
    public var idlePoll: Duration
    public var retry: EventRetryPolicy
    /// How long after it is queued (or redelivered) an event is retried before it is `failed`.
    public var retryWindow: TimeInterval

    public init(
        concurrency: Int = 16, timeout: Duration = .seconds(10), lease: TimeInterval = 40, maxResponseBytes: Int = 4096,
        idlePoll: Duration = .seconds(30), retry: EventRetryPolicy = EventRetryPolicy(), retryWindow: TimeInterval = 3 * 24 * 3600
    ) {
        self.retryWindow = retryWindow
        self.concurrency = max(1, concurrency)
        self.timeout = timeout
        self.lease = lease
        self.maxResponseBytes = maxResponseBytes
        self.idlePoll = idlePoll
        self.retry = retry
    }
}
