import Dispatch
import Logging
import Postgres
import Synchronization

/// The PostgreSQL backend of the storage seam (`database.url`): any number of Tollgate instances
/// share one database.
///
/// Writes keep SQLite's model, one writer at a time, so every rule written for SQLite holds
/// unchanged across instances: each write transaction first takes one transaction-level advisory
/// lock (`pg_advisory_xact_lock`, keyed by the schema), released by its COMMIT or ROLLBACK. Reads run beside them, each
/// in a `REPEATABLE READ READ ONLY` transaction (one snapshot, as a SQLite read transaction).
/// Background work is still claimed with `FOR UPDATE SKIP LOCKED` (`SQLDialect.skipLockedClause`)
/// so that a claim never waits on rows another instance holds.
///
/// Connections come from two pools (writers, readers); calls from async code run on threads of
/// each pool's own, as many as it has connections, never on Swift's cooperative pool.
public final class PostgresDatabase: SQLDatabase {
    /// The settings, without the password (`postgres://user:***@host:port/db`).
    public let description: String
    /// Where the database logs.
    public let logger: Logger
    private let writers: PostgresPool
    private let readers: PostgresPool
    /// The threads async calls run on, one per connection of their pool (see `BlockingThreads`).
    private let writerThreads: BlockingThreads
    private let readerThreads: BlockingThreads
    private let placeholders = PostgresPlaceholders()
    let counter = ErrorCounter()
    private let writeLatencies = Mutex(Histogram())
    private let closed = Atomic<Bool>(false)

    /// The advisory lock every write transaction takes, in the two-key form: this class ("tgwr"
    /// in ASCII) and the hash of the schema holding the tables, so deployments in separate schemas
    /// of one database do not wait on each other.
    static let writerLockClass: Int32 = 0x7467_7772

    /// How a write transaction begins, in one round trip: BEGIN, the limits, the writer lock. A
    /// writer waits at most 30 s for the lock (it then fails as busy instead of hanging), and a
    /// session that holds it but sends nothing for 15 s (its host died without closing the
    /// connection) is ended by the server, so the lock is released. Write transactions take
    /// milliseconds.
    static let beginWrite = "BEGIN; SET LOCAL lock_timeout = '30s'; SET LOCAL idle_in_transaction_session_timeout = '15s'; "
        + "SELECT pg_advisory_xact_lock(\(writerLockClass), hashtext(current_schema()))"

    /// The oldest PostgreSQL this backend runs on (API.md: 13+).
    static let minimumServerVersion = 130_000

    /// Connects to the database at `url` (`postgres://user:password@host:5432/db?sslmode=require`)
    /// and checks that it answers and is PostgreSQL 13 or later.
    /// - Parameter maxConnections: the most connections open at once (at least 2). A quarter of
    ///   them, one to three, serve write transactions: they take turns on the writer lock, so a
    ///   few suffice (one commits while the next waits). The rest serve reads.
    /// - Throws: `StorageError` naming what is wrong with the URL, the connection or the server.
    public init(url: String, maxConnections: Int = 10, logger: Logger = .disabled) throws {
        let writers = min(3, max(1, maxConnections / 4))
        let readers = max(1, maxConnections - writers)
        let configuration: PostgresConfiguration
        do {
            configuration = try PostgresConfiguration(url: url)
        } catch let error as PostgresError {
            throw StorageError(sqlState: "08001", message: "database.url: \(error.message)")
        }
        var named = configuration
        if named.applicationName == nil { named.applicationName = "tollgate" }
        description = named.description
        self.logger = logger
        self.writers = PostgresPool(
            configuration: named, options: PostgresPoolOptions(maxConnections: max(1, writers), checkoutTimeout: .seconds(30)),
            logger: logger)
        self.readers = PostgresPool(
            configuration: named, options: PostgresPoolOptions(maxConnections: max(1, readers), checkoutTimeout: .seconds(30)),
            logger: logger)
        writerThreads = BlockingThreads(count: writers, name: "tollgate.postgres.write")
        readerThreads = BlockingThreads(count: readers, name: "tollgate.postgres.read")
        let version: Int
        do {
            version = try self.readers.withConnection { connection in
                Int(try connection.queryOne("SHOW server_version_num")?.string("server_version_num") ?? "") ?? 0
            }
        } catch let error as PostgresError {
            throw counter.record(StorageError(
                sqlState: error.sqlState ?? "08006", message: "cannot open database \(description): \(error.message)"))
        }
        guard version >= Self.minimumServerVersion else {
            throw counter.record(StorageError(
                sqlState: "0A000", message: "database \(description) runs PostgreSQL \(version / 10_000); Tollgate needs 13 or later"))
        }
        logger.info("storage.opened", [("url", .string(description)), ("server_version", .int(version))])
    }

    deinit {
        close()
    }

    /// PostgreSQL.
    public var dialect: SQLDialect { .postgresql }

    /// Runs `body` in a write transaction, after the writer lock (see the type's documentation).
    /// - Throws: what `body` throws (the transaction rolls back), `StorageError`.
    public func write<T: Sendable>(_ body: @Sendable (Connection) throws -> T) async throws -> T {
        try await withoutActuallyEscaping(body) { escapable in
            try await offPool(writerThreads, BlockingWork { try self.writeSync(escapable) })
        }
    }

    /// Runs `body` in a read-only transaction on one snapshot.
    /// - Throws: what `body` throws, `StorageError` (also when `body` tries to write).
    public func read<T: Sendable>(_ body: @Sendable (Connection) throws -> T) async throws -> T {
        try await withoutActuallyEscaping(body) { escapable in
            try await offPool(readerThreads, BlockingWork { try self.readSync(escapable) })
        }
    }

    /// `write` for callers outside async code. Blocks the calling thread.
    /// - Throws: what `body` throws, `StorageError`.
    public func writeSync<T>(_ body: (Connection) throws -> T) throws -> T {
        try checkOpen()
        let started = DispatchTime.now().uptimeNanoseconds
        defer { recordWrite(since: started) }
        return try transaction(writers, Self.beginWrite, body)
    }

    /// `read` for callers outside async code. Blocks the calling thread.
    /// - Throws: what `body` throws, `StorageError`.
    public func readSync<T>(_ body: (Connection) throws -> T) throws -> T {
        try checkOpen()
        return try transaction(readers, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", body)
    }

    /// Throws unless a write transaction can commit now (`/readyz`): the server answers, is not
    /// a read-only standby, and the writer lock is free within the pool's checkout time.
    public func checkWritable() async throws {
        try await write { connection in
            if try connection.queryOne("SELECT pg_is_in_recovery() AS standby")?.bool("standby") == true {
                throw StorageError(sqlState: "25006", message: "the database is a read-only standby")
            }
        }
    }

    /// Storage errors seen so far (`/metrics`).
    public var errorCount: Int { counter.value }

    /// How long `write` calls took, including the wait for the writer lock.
    public var writeLatency: Histogram { writeLatencies.withLock { $0 } }

    /// PostgreSQL's WAL is the server's business: nil.
    public var walBytes: Int? { nil }

    /// Closes both pools and ends their threads; later calls throw.
    public func close() {
        guard closed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        writerThreads.stop()
        readerThreads.stop()
        writers.close()
        readers.close()
        logger.info("storage.closed", [("url", .string(description))])
    }

    // MARK: Helpers

    private func transaction<T>(_ pool: PostgresPool, _ begin: String, _ body: (Connection) throws -> T) throws -> T {
        do {
            return try pool.transaction(begin) { connection in
                try body(PostgresSQLConnection(connection, placeholders: placeholders, counter: counter))
            }
        } catch let error as PostgresError {
            throw counter.record(PostgresSQLConnection.storageError(error, sql: nil))
        }
    }

    private func checkOpen() throws {
        guard !closed.load(ordering: .acquiring) else {
            throw counter.record(StorageError(sqlState: "08003", message: "the database \(description) is closed"))
        }
    }

    private func recordWrite(since started: UInt64) {
        let seconds = Double(DispatchTime.now().uptimeNanoseconds &- started) / 1e9
        writeLatencies.withLock { $0.observe(seconds) }
    }

    /// Runs blocking work on one of `threads` and awaits it. The work is dropped before the
    /// caller resumes (what `withoutActuallyEscaping` checks when the caller's body returns).
    private func offPool<T: Sendable>(_ threads: BlockingThreads, _ work: BlockingWork<T>) async throws -> T {
        try await threads.run(work, stoppedError: counter.record(
            StorageError(sqlState: "08003", message: "the database \(description) is closed")))
    }
}
