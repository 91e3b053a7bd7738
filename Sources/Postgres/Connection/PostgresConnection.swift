import Logging

/// One session with a PostgreSQL server over protocol v3: statements with parameters (extended
/// protocol, prepared statements cached per connection), scripts (simple protocol) and
/// transactions, on a blocking socket with a timeout on every read and write.
///
/// After a server error the session stays usable (the client reads up to ReadyForQuery). After an
/// I/O error, a timeout, a protocol violation or a FATAL from the server it is closed: `isClosed`
/// turns true and every later call throws `.closed`.
///
/// Not Sendable: one thread uses a connection at a time (a pool hands it to one caller at a time).
/// It owns its socket and TLS session.
public final class PostgresConnection {
    /// What the connection was opened with.
    public let configuration: PostgresConfiguration
    let logger: Logger
    let stream: MessageStream

    /// The transaction status from the last ReadyForQuery.
    public internal(set) var transactionStatus: PostgresTransactionStatus = .idle
    /// The run-time parameters the server reported (server_version, TimeZone, integer_datetimes...).
    public internal(set) var serverParameters: [String: String] = [:]
    /// The server process serving this session (`pg_backend_pid()`).
    public internal(set) var processID: Int32 = 0
    var secretKey: Int32 = 0
    /// How the server authenticated this session: "trust", "password", "md5" or "scram-sha-256".
    public internal(set) var authenticationMethod = "trust"
    /// True once the session is over (closed, or broken by an I/O error, timeout or FATAL).
    public internal(set) var isClosed = false
    /// Named prepared statements on the server.
    var statements: StatementCache
    /// Statements to close with the next pipeline (evicted or no longer valid).
    var pendingCloses: [String] = []
    /// Whether the last query's cached statement was dropped because its table changed.
    var invalidatedStatement = false
    /// Statements that open the current transaction (BEGIN, SET LOCAL) and have not been sent
    /// yet: they go out in the same write as the transaction's first statement, before its Sync
    /// (see `transaction(pipelining:_:)`).
    var pendingBegin: [String] = []
    /// Statements queued by `executeDeferred`, sent with the next one that needs an answer.
    var deferred = DeferredPipeline()
    /// How many times the connection sent a Sync or a Query and waited for the answer (its
    /// round trips to the server since it connected, for tests and measurements).
    public internal(set) var roundTrips = 0

    /// Connects, negotiates TLS per `sslMode`, authenticates and waits until the server is ready.
    /// - Throws: `PostgresError` (`.connection`, `.timeout`, `.tls`, `.authentication` with the
    ///   server's SQLSTATE such as 28P01 for a wrong password, `.server` for a missing database).
    public init(configuration: PostgresConfiguration, logger: Logger = .disabled) throws {
        self.configuration = configuration
        self.logger = logger.with([("db_host", .string(configuration.host)), ("db_port", .int(configuration.port))])
        self.statements = StatementCache(capacity: configuration.statementCacheCapacity)
        let socket = try configuration.endpoint.connect(timeout: configuration.connectTimeout)
        self.stream = MessageStream(socket: socket)
        do {
            try stream.setTimeout(configuration.connectTimeout)
            try negotiateTLS()
            try startUp()
            try stream.setTimeout(configuration.ioTimeout)
        } catch {
            isClosed = true
            stream.close(sayGoodbye: false)
            throw error
        }
        self.logger.debug(
            "postgres.connected",
            [
                ("backend_pid", .int(Int(processID))), ("tls", .bool(stream.isEncrypted)), ("auth", .string(authenticationMethod))
            ])
    }

    deinit {
        if !isClosed { stream.close(sayGoodbye: true) }
    }

    /// Whether the session runs over TLS.
    public var isEncrypted: Bool { stream.isEncrypted }

    /// How many named prepared statements this connection holds on the server.
    public var cachedStatementCount: Int { statements.count }

    /// What another thread needs to ask the server to cancel this session's running statement.
    public var cancelToken: PostgresCancelToken {
        PostgresCancelToken(
            endpoint: configuration.endpoint, processID: processID, secretKey: secretKey, timeout: configuration.connectTimeout)
    }

    /// Says goodbye (Terminate) and closes the socket. Idempotent.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        statements.removeAll()
        stream.close(sayGoodbye: true)
    }

    /// Whether the server sent something while the connection sat idle (it is closing the session:
    /// terminated backend, shutdown). Never blocks. For pools, before reusing a connection.
    public var hasUnexpectedInput: Bool { isClosed || stream.hasUnexpectedInput() }

    /// Throws `.closed` once the session is over.
    func checkOpen() throws {
        if isClosed { throw PostgresError(.closed, "the connection is closed (after close() or an earlier I/O failure)") }
    }

    /// Runs one exchange with the server. A failure that leaves the stream in an unknown state
    /// (I/O, timeout, protocol violation, FATAL) closes the connection; after a timeout the server
    /// is first asked to cancel the statement, so it does not run on unobserved.
    func exchange<T>(_ body: () throws -> T) throws -> T {
        try checkOpen()
        do {
            return try body()
        } catch let error as PostgresError {
            switch error.kind {
            case .server where error.server?.endsSession == true, .connection, .timeout, .tls, .protocolViolation, .authentication:
                if error.kind == .timeout {
                    // Bounded tightly: the network may be what timed out.
                    var token = cancelToken
                    token.timeout = min(token.timeout, .seconds(2))
                    try? token.cancel()
                }
                isClosed = true
                statements.removeAll()
                deferred = DeferredPipeline()
                stream.close(sayGoodbye: error.kind != .connection)
                logger.warning("postgres.connection_closed", [("error", .string(error.message))])
            default:
                break
            }
            throw error
        }
    }

    /// Handles the messages any phase may receive at any time; false when `message` is not one.
    func handleAsynchronous(_ message: BackendMessage) -> Bool {
        switch message {
        case .parameterStatus(let name, let value):
            serverParameters[name] = value
            return true
        case .noticeResponse(let notice):
            // The primary message only: DETAIL may quote values.
            logger.info(
                "postgres.notice",
                [
                    ("severity", .string(notice.severity)), ("sqlstate", .string(notice.code)), ("message", .string(notice.message))
                ])
            return true
        case .notification:
            return true
        default:
            return false
        }
    }
}
