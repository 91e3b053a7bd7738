import Foundation

/// When to retry a message after a transient failure: exponential backoff with jitter, then give up.
///
/// The n-th failed attempt waits `initialDelay × 2^(n-1)`, capped at `maximumDelay`, multiplied by
/// a random factor in `1 ± jitter` (so many messages failing together do not retry together).
/// When the next attempt would fall later than `giveUpAfter` after the message was enqueued, the
/// message is marked failed instead. Defaults: 1 min doubling to 6 h, ±20 %, 3 days (about 20
/// attempts).
public struct OutboxRetryPolicy: Sendable {
    /// The wait after the first failure.
    public var initialDelay: Duration
    /// The longest wait between attempts.
    public var maximumDelay: Duration
    /// The fraction by which a wait is randomly lengthened or shortened (0 for none).
    public var jitter: Double
    /// How long after enqueueing a message is still tried.
    public var giveUpAfter: Duration
    /// A random number in 0..<1 (injected for tests).
    public var random: @Sendable () -> Double

    /// Creates a policy.
    public init(
        initialDelay: Duration = .seconds(60), maximumDelay: Duration = .seconds(6 * 3600), jitter: Double = 0.2,
        giveUpAfter: Duration = .seconds(3 * 24 * 3600), random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.jitter = jitter
        self.giveUpAfter = giveUpAfter
        self.random = random
    }

    /// The wait after the `attempt`-th attempt failed (1-based).
    public func delay(afterAttempt attempt: Int) -> Duration {
        let initial = Double(initialDelay.milliseconds)
        let maximum = Double(maximumDelay.milliseconds)
        let exponent = Double(min(max(attempt, 1) - 1, 40))
        let base = min(initial * pow(2, exponent), maximum)
        let factor = 1 + jitter * (2 * random() - 1)
        return .milliseconds(Int64(max(0, base * factor)))
    }

    /// When to try again after the `attempt`-th attempt failed at `now`, or nil to give up.
    public func nextAttempt(afterAttempt attempt: Int, at now: Date, createdAt: Date) -> Date? {
        let next = now.addingTimeInterval(Double(delay(afterAttempt: attempt).milliseconds) / 1000)
        let deadline = createdAt.addingTimeInterval(Double(giveUpAfter.milliseconds) / 1000)
        return next > deadline ? nil : next
    }
}
