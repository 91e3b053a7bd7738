/// Listening address and limits of an `HTTPServer`. Defaults are safe for the open internet.
public struct HTTPServerConfiguration: Sendable {
    public var host: String
    /// 0 picks a free port (see `HTTPServer.port`).
    public var port: Int
    /// The longest request line (method, target, version). 16 KB, as one header line: a
    /// `/checkout/start` link carrying both platform tokens at their 4,096 bytes beside every other
    /// input reaches about 10 KB, and must reach the router (a 405 or a 303, not a 414).
    public var maxRequestLineBytes: Int
    public var maxHeaderLineBytes: Int
    public var maxHeaderBytes: Int
    public var maxHeaderCount: Int
    /// Default body limit; `HTTPResponder.maxBodyBytes` may override it per route.
    public var maxBodyBytes: Int
    /// Time allowed to receive a complete request head once its first byte arrived.
    public var headerReadTimeout: Duration
    /// Time allowed between two reads while receiving a body.
    public var bodyReadTimeout: Duration
    /// Time allowed for a whole request, head and body, from its first byte, whatever its
    /// pace: a client trickling a byte just inside `bodyReadTimeout` still gets a 408 here.
    public var requestTimeout: Duration
    /// Time an idle keep-alive connection is kept open.
    public var keepAliveIdleTimeout: Duration
    /// Connections beyond this are accepted and closed at once with a 503.
    public var maxConnections: Int
    /// Connections one client address (the socket peer) may hold; its further connections are
    /// closed at once with a 503 while other clients are unaffected. Behind a trusted proxy (see
    /// `clientAddressPolicy`) the cap is on the forwarded client's requests in flight instead.
    public var maxConnectionsPerClient: Int
    /// Which peers are trusted proxies and whom they forward; nil: every socket peer is a client.
    public var clientAddressPolicy: (any ClientAddressPolicy)? = nil
    /// How long in-flight requests may run after shutdown starts.
    public var shutdownGracePeriod: Duration
    /// Listen backlog.
    public var backlog: Int
    /// The priority of each connection's task; nil: the default. A server standing in for
    /// another host (the tests' fake Stripe, App Store, Google and event receivers) runs at
    /// `.high`, so the process it shares with the code under test does not queue its answers
    /// behind that code's work, as a real remote host's would not be.
    public var connectionPriority: TaskPriority? = nil

    public init(
        host: String = "127.0.0.1",
        port: Int = 8080,
        maxRequestLineBytes: Int = 16 * 1024,
        maxHeaderLineBytes: Int = 16 * 1024,
        maxHeaderBytes: Int = 64 * 1024,
        maxHeaderCount: Int = 100,
        maxBodyBytes: Int = 1024 * 1024,
        headerReadTimeout: Duration = .seconds(10),
        bodyReadTimeout: Duration = .seconds(30),
        requestTimeout: Duration = .seconds(60),
        keepAliveIdleTimeout: Duration = .seconds(60),
        maxConnections: Int = 10_000,
        maxConnectionsPerClient: Int = 256,
        shutdownGracePeriod: Duration = .seconds(10),
        backlog: Int = 1024,
        clientAddressPolicy: (any ClientAddressPolicy)? = nil
    ) {
        self.host = host
        self.port = port
        self.maxRequestLineBytes = maxRequestLineBytes
        self.maxHeaderLineBytes = maxHeaderLineBytes
        self.maxHeaderBytes = maxHeaderBytes
        self.maxHeaderCount = maxHeaderCount
        self.maxBodyBytes = maxBodyBytes
        self.headerReadTimeout = headerReadTimeout
        self.bodyReadTimeout = bodyReadTimeout
        self.requestTimeout = requestTimeout
        self.keepAliveIdleTimeout = keepAliveIdleTimeout
        self.maxConnections = maxConnections
        self.maxConnectionsPerClient = maxConnectionsPerClient
        self.shutdownGracePeriod = shutdownGracePeriod
        self.backlog = backlog
        self.clientAddressPolicy = clientAddressPolicy
    }
}
