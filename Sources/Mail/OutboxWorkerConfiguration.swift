/// Tuning of the `OutboxWorker`.
public struct OutboxWorkerConfiguration: Sendable {
    /// How many messages are delivered at the same time (and claimed per batch).
    public var concurrency: Int
    /// A message left `sending` for longer than this (a crashed delivery, or an instance that
    /// died) is claimed again. With the poll interval, another instance sends it within a minute
    /// (API.md "Storage backends"); an SMTP conversation longer than the lease (servers answer in
    /// seconds; the client's own limits allow minutes) may then send it twice, with one Message-ID.
    public var lease: Duration
    /// The longest the worker sleeps between looks at the outbox when nothing wakes it.
    public var pollInterval: Duration
    /// Backoff and giving up.
    public var retryPolicy: OutboxRetryPolicy
    /// Opens parameters that `Outbox.enqueue` sealed (nil when nothing is sealed).
    public var cipher: OutboxCipher?
    /// Asked before each delivery whether the message should still leave (nil: all leave).
    public var sendCheck: (any OutboxSendCheck)? = nil

    /// Creates a configuration: 4 at a time, 45-second lease, 15-second poll.
    public init(
        concurrency: Int = 4, lease: Duration = .seconds(45), pollInterval: Duration = .seconds(15),
        retryPolicy: OutboxRetryPolicy = OutboxRetryPolicy(), cipher: OutboxCipher? = nil
    ) {
        self.cipher = cipher
        self.concurrency = max(1, concurrency)
        self.lease = lease
        self.pollInterval = pollInterval
        self.retryPolicy = retryPolicy
    }
}
