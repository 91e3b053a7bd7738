import Dispatch
import Foundation
import Logging
import Postgres
import Synchronization

/// The PostgreSQL backend of the storage seam (`database.url`): any number of Tollgate instances
/// share one database.
///
/// Writers run at once, on any instance; no lock is common to every write. A write transaction is
/// `SERIALIZABLE` by default (`WriteIsolation`): it commits only if the result is the same as
/// some one-at-a-time order of the transactions, so every rule written for SQLite's single writer
/// holds unchanged (docs/POSTGRES-CONCURRENCY.md lists each write path and its race). The loser of
/// a conflict fails with SQLSTATE 40001 (or 40P01 for a deadlock) and its whole body runs again,
/// on a fresh snapshot, up to `maxAttempts` times with a short random pause between. Reads run
/// beside them, each in a `REPEATABLE READ READ ONLY` transaction (one snapshot, as a SQLite read
/// transaction). Background work is claimed with `FOR UPDATE SKIP LOCKED`
/// (`SQLDialect.skipLockedClause`) at `READ COMMITTED`, so that a claim never waits on rows
/// another instance holds.
///
/// A transaction's BEGIN and its settings cost no round trip: they go out with its first
/// statement (`PostgresConnection.transaction(pipelining:_:)`). Statements whose outcome a body
/// does not read (`SQLConnection.executeDeferred`: key locks, UPDATEs, outbox INSERTs) go out with
/// the next statement that needs an answer, or with the COMMIT, in one write before one Sync.
///
/// Connections come from two pools (writers, readers); calls from async code run on threads of
/// each pool's own, as many as it has connections, never on Swift's cooperative pool.
public final class PostgresDatabase: SQLDatabase {
    /// The settings, without the password (`postgres://user:***@host:port/db`).
    public let description: String
    /// Where the database logs.
    public let logger: Logger
    private let writers: PostgresPool
    /// How many connections serve writes, and reads (`init`'s split of `maxConnections`).
    let writerConnections: Int
    let readerConnections: Int
    private let readers: PostgresPool
    /// The threads async calls run on, one per connection of their pool (see `BlockingThreads`).
    private let writerThreads: BlockingThreads
    private let readerThreads: BlockingThreads
    private let placeholders = PostgresPlaceholders()
    let counter = ErrorCounter()
    private let writeLatencies = Mutex(Histogram())
    private let closed = Atomic<Bool>(false)
    private let conflictCount = Atomic<Int>(0)
    private let writeRoundTripCount = Atomic<Int>(0)

    /// How a write transaction begins, sent with its first statement: the isolation level and two
    /// limits. A statement waits at most 30 s for a row lock (it then fails as busy instead of
    /// hanging), and a session inside a transaction that sends nothing for 15 s (its host died
    /// without closing the connection) is ended by the server, so its row locks are released.
    /// Write transactions take milliseconds.
    static func beginWrite(_ isolation: WriteIsolation) -> [String] {
        let level =
            switch isolation {
            case .serializable: "SERIALIZABLE"
            case .readCommitted: "READ COMMITTED"
            }
        return ["BEGIN ISOLATION LEVEL \(level)", "SET LOCAL lock_timeout = '30s'", "SET LOCAL idle_in_transaction_session_timeout = '15s'"]
    }

    /// How a read transaction begins: one snapshot, no writes.
    static let beginRead = ["BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"]

    /// How many times a write body runs at most when it keeps losing conflicts (40001, 40P01).
    static let maxAttempts = 10

    /// The oldest PostgreSQL this backend runs on (API.md: 13+).
    static let minimumServerVersion = 130_000

    /// Connects to the database at `url` (`postgres://user:password@host:5432/db?sslmode=require`)
    /// and checks that it answers and is PostgreSQL 13 or later.
    /// - Parameter maxConnections: the most connections open at once (at least 2). Two thirds of
    ///   them serve write transactions (writers run at once, each mostly waiting on a round trip;
    ///   at 0.5 ms RTT 8 writers of 12 applied webhooks 1.2x as fast as 6, with repeat
    ///   redemptions no slower: docs/BENCHMARKS.md, 2026-11-26T19:09Z), the rest serve reads.
    /// - Throws: `StorageError` naming what is wrong with the URL, the connection or the server.
    public init(url: String, maxConnections: Int = 10, logger: Logger = .disabled) throws {
        let writers = max(1, maxConnections * 2 / 3)
        let readers = max(1, maxConnections - writers)
        writerConnections = writers
        readerConnections = readers
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
            throw counter.record(
                StorageError(
                    sqlState: error.sqlState ?? "08006", message: "cannot open database \(description): \(error.message)"))
        }
        guard version >= Self.minimumServerVersion else {
            throw counter.record(
                StorageError(
                    sqlState: "0A000", message: "database \(description) runs PostgreSQL \(version / 10_000); Tollgate needs 13 or later"))
        }
        logger.info("storage.opened", [("url", .string(description)), ("server_version", .int(version))])
    }

    deinit {
        close()
    }

    /// PostgreSQL.
    public var dialect: SQLDialect { .postgresql }

    /// Runs `body` in a `SERIALIZABLE` write transaction, again when it loses a conflict (see the
    /// type's documentation).
    /// - Throws: what `body` throws (the transaction rolls back), `StorageError`.
    public func write<T: Sendable>(_ body: @Sendable (Connection) throws -> T) async throws -> T {
        try await write(isolation: .serializable, body)
    }

    /// Runs `body` in a write transaction at `isolation`, again when it loses a conflict.
    /// - Throws: what `body` throws (the transaction rolls back), `StorageError`.
    public func write<T: Sendable>(isolation: WriteIsolation, _ body: @Sendable (Connection) throws -> T) async throws -> T {
        try await withoutActuallyEscaping(body) { escapable in
            try await offPool(writerThreads, BlockingWork { try self.writeSync(isolation: isolation, escapable) })
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
        try writeSync(isolation: .serializable, body)
    }

    /// `write(isolation:_:)` for callers outside async code. Blocks the calling thread.
    /// - Throws: what `body` throws, `StorageError`.
    public func writeSync<T>(isolation: WriteIsolation, _ body: (Connection) throws -> T) throws -> T {
        try checkOpen()
        let started = MonotonicClock.now()
        defer { recordWrite(since: started) }
        var attempt = 1
        while true {
            do {
                return try transaction(writers, Self.beginWrite(isolation), body)
            } catch let conflict as TransactionConflict {
                guard attempt < Self.maxAttempts else {
                    // A unique violation was counted when the statement met it.
                    throw PostgresSQLConnection.isInsertRace(conflict.error) ? conflict.error : counter.record(conflict.error)
                }
                conflictCount.add(1, ordering: .relaxed)
                Self.pause(beforeAttempt: attempt + 1)
                attempt += 1
            }
        }
    }

    /// `read` for callers outside async code. Blocks the calling thread.
    /// - Throws: what `body` throws, `StorageError`.
    public func readSync<T>(_ body: (Connection) throws -> T) throws -> T {
        try checkOpen()
        do {
            return try transaction(readers, Self.beginRead, body)
        } catch let conflict as TransactionConflict {
            throw counter.record(conflict.error)
        }
    }

    /// Runs `body` on one writer connection outside any transaction: each statement commits on
    /// its own (what `CREATE INDEX CONCURRENTLY` needs). Blocks the calling thread. The session's
    /// advisory locks are released before the connection goes back to the pool; a connection
    /// that cannot release them is closed, never pooled.
    /// - Throws: what `body` throws, `StorageError`.
    func withSessionSync<T>(_ body: (Connection) throws -> T) throws -> T {
        try checkOpen()
        do {
            return try writers.withConnection { postgres in
                defer {
                    if (try? postgres.query("SELECT pg_advisory_unlock_all()")) == nil { postgres.close() }
                }
                return try body(PostgresSQLConnection(postgres, placeholders: placeholders, counter: counter))
            }
        } catch let error as PostgresError {
            throw counter.record(PostgresSQLConnection.storageError(error, sql: nil))
        }
    }

    /// Throws unless a write transaction can commit now (`/readyz`): the server answers, is not
    /// a read-only standby, and a write transaction commits within the pool's checkout time.
    public func checkWritable() async throws {
        try await write { connection in
            if try connection.queryOne("SELECT pg_is_in_recovery() AS standby")?.bool("standby") == true {
                throw StorageError(sqlState: "25006", message: "the database is a read-only standby")
            }
        }
    }

    /// Storage errors seen so far (`/metrics`).
    public var errorCount: Int { counter.value }

    /// Write transactions run again after losing a conflict (40001, 40P01), since the database was opened.
    public var conflictRetries: Int { conflictCount.load(ordering: .relaxed) }

    /// Round trips to the server that write transactions took, since the database was opened
    /// (each Sync or simple Query waited for; the statements deferred with `executeDeferred` ride
    /// with the next one).
    public var writeRoundTrips: Int { writeRoundTripCount.load(ordering: .relaxed) }

    /// How long `write` calls took, including the waits for row locks and any runs again.
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

    /// A transaction that lost a conflict: worth running again (never escapes `writeSync`).
    private struct TransactionConflict: Error {
        let error: StorageError
    }

    /// One run of `body` in a transaction begun by `begin`. A serialization failure or deadlock,
    /// whether a statement met it (even one `body` caught) or the COMMIT, is a `TransactionConflict`;
    /// so is a unique violation that escaped a write's body (`isInsertRace`).
    private func transaction<T>(_ pool: PostgresPool, _ begin: [String], _ body: (Connection) throws -> T) throws -> T {
        var connection: PostgresSQLConnection?
        do {
            return try pool.withConnection { postgres in
                let started = postgres.roundTrips
                defer { if pool === writers { writeRoundTripCount.add(postgres.roundTrips - started, ordering: .relaxed) } }
                return try postgres.transaction(pipelining: begin) { postgres in
                    let wrapped = PostgresSQLConnection(postgres, placeholders: placeholders, counter: counter)
                    connection = wrapped
                    return try body(wrapped)
                }
            }
        } catch let error as PostgresError {
            // A claim answered before COMMIT (the transaction rolled back), COMMIT's own error, or
            // a deferred statement's sent with it.
            if error.kind == .claimRefused { throw StorageError.claimRefused(sql: connection?.failedSQL(error, else: nil) ?? "") }
            let storageError = PostgresSQLConnection.storageError(error, sql: connection?.failedSQL(error, else: nil))
            if PostgresSQLConnection.isConflict(storageError) { throw TransactionConflict(error: storageError) }
            if let conflict = connection?.conflict { throw TransactionConflict(error: conflict) }
            if pool === writers && PostgresSQLConnection.isInsertRace(storageError) {
                throw TransactionConflict(error: counter.record(storageError))
            }
            throw counter.record(storageError)
        } catch let error as StorageError where pool === writers && PostgresSQLConnection.isInsertRace(error) {
            throw TransactionConflict(error: error)
        } catch {
            if let conflict = connection?.conflict { throw TransactionConflict(error: conflict) }
            throw error
        }
    }

    /// A random pause before running a conflicting transaction again, growing with the attempt
    /// (up to ~1, 2, 4... ms, at most 32 ms) so that the transactions that collided do not meet again.
    private static func pause(beforeAttempt attempt: Int) {
        let ceiling = 0.001 * Double(1 << min(attempt - 2, 5))
        Thread.sleep(forTimeInterval: Double.random(in: ceiling / 4...ceiling))
    }

    private func checkOpen() throws {
        guard !closed.load(ordering: .acquiring) else {
            throw counter.record(StorageError(sqlState: "08003", message: "the database \(description) is closed"))
        }
    }

    private func recordWrite(since started: UInt64) {
        let seconds = MonotonicClock.seconds(since: started)
        writeLatencies.withLock { $0.observe(seconds) }
    }

    /// Runs blocking work on one of `threads` and awaits it. The work is dropped before the
    /// caller resumes (what `withoutActuallyEscaping` checks when the caller's body returns).
    private func offPool<T: Sendable>(_ threads: BlockingThreads, _ work: BlockingWork<T>) async throws -> T {
        try await threads.run(
            work,
            stoppedError: counter.record(
                StorageError(sqlState: "08003", message: "the database \(description) is closed")))
    }
}
