/// How a `PostgresPool` sizes, hands out and checks its connections.
public struct PostgresPoolOptions: Sendable, Equatable {
    /// The most connections open at once (checked out plus idle).
    public var maxConnections: Int
    /// How long a checkout waits for a free connection before throwing `.pool`.
    public var checkoutTimeout: Duration
    /// An idle connection older than this is checked with `SELECT 1` before it is handed out
    /// (a connection whose server already closed it is caught without a round trip, always).
    public var healthCheckAfter: Duration
    /// An idle connection older than this is closed instead of reused.
    public var maxIdleTime: Duration

    /// Options with these values.
    public init(
        maxConnections: Int = 10, checkoutTimeout: Duration = .seconds(10), healthCheckAfter: Duration = .seconds(30),
        maxIdleTime: Duration = .seconds(300)
    ) {
        self.maxConnections = max(1, maxConnections)
        self.checkoutTimeout = checkoutTimeout
        self.healthCheckAfter = healthCheckAfter
        self.maxIdleTime = maxIdleTime
    }
}
