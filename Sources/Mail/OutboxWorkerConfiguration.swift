/// Tuning of the `OutboxWorker`.
public struct OutboxWorkerConfiguration: Sendable {
    /// How many messages are delivered at the same time (and claimed per batch).
    public var concurrency: Int
    /// A message left `sending` for longer than this (a crashed delivery) is claimed again.
    public var lease: Duration
    /// The longest the worker sleeps between looks at the outbox when nothing wakes it.
    public var pollInterval: Duration
    /// Backoff and giving up.
    public var retryPolicy: OutboxRetryPolicy
    /// Opens parameters that `Outbox.enqueue` sealed (nil when nothing is sealed).
    public var cipher: OutboxCipher?

    /// Creates a configuration: 4 at a time, 5-minute lease, 30-second poll.
    public init(
        concurrency: Int = 4, lease: Duration = .seconds(300), pollInterval: Duration = .seconds(30),
        retryPolicy: OutboxRetryPolicy = OutboxRetryPolicy(), cipher: OutboxCipher? = nil
    ) {
        self.cipher = cipher
        self.concurrency = max(1, concurrency)
        self.lease = lease
        self.pollInterval = pollInterval
        self.retryPolicy = retryPolicy
    }
}
