import Dispatch
#if canImport(Glibc)
    import Glibc
#endif
import Logging
import Synchronization
internal import CSQLite

/// The thread-safe front of one SQLite database file.
///
/// One writer connection on its own serial queue takes every write, in order, each in a
/// `BEGIN IMMEDIATE` transaction; read-only connections (`ReaderPool`) serve reads in read
/// transactions on the calling thread. The file is in WAL mode, so readers see a consistent
/// snapshot and never wait for the writer, and the writer never waits for readers.
///
/// Durability: `synchronous=NORMAL` in WAL mode fsyncs only at checkpoints, not at every commit.
/// The database stays consistent after any crash of the process (a committed transaction is in
/// the WAL, in the OS page cache, before `COMMIT` returns); only an OS crash or power loss can lose
/// the last transactions before a checkpoint, and even then the file is never corrupted.
///
/// Sendable without `@unchecked`: every stored property is Sendable (the connection slots carry
/// their own justification).
public final class SQLiteDatabase: SQLDatabase {
    /// The database file.
    public let path: String
    private let writer: ConnectionSlot
    private let readers: ReaderPool
    private let checkpointer: Checkpointer
    let counter: ErrorCounter
    /// Where the database logs.
    public let logger: Logger
    /// SQLite.
    public var dialect: SQLDialect { .sqlite }
    let busyTimeoutMilliseconds: Int32
    private let closed = Atomic<Bool>(false)
    private let writeLatencies = Mutex(Histogram())

    /// Opens (creating if needed) the database at `path`, creating its parent directory, with
    /// one writer and `readers` reader connections kept open (at least one; more are opened
    /// while that many reads run at once).
    /// `busyTimeout` is how long a connection waits for a lock held by another process.
    /// `walLimitBytes` bounds the write-ahead log under steady load (see `Checkpointer`).
    /// - Throws: `StorageError` when the directory cannot be created, the file cannot be opened,
    ///   or it cannot be put in WAL mode.
    public init(
        path: String, readers: Int = 2, busyTimeout: Duration = .seconds(5), walLimitBytes: Int = 64 << 20,
        logger: Logger = .disabled
    ) throws {
        let counter = ErrorCounter()
        self.path = path
        self.counter = counter
        self.logger = logger
        if let parent = FileSystem.parentDirectory(of: path), let reason = FileSystem.createDirectories(parent) {
            throw counter.record(
                StorageError(
                    resultCode: SQLITE_CANTOPEN,
                    message: "cannot create the directory for database '\(path)': \(reason)"))
        }
        let timeout = Int32(
            clamping: busyTimeout.components.seconds * 1000
                + busyTimeout.components.attoseconds / 1_000_000_000_000_000)
        busyTimeoutMilliseconds = timeout

        let writerConnection = try SQLiteConnection(path: path, readOnly: false, busyTimeoutMilliseconds: timeout, counter: counter)
        let mode = try writerConnection.queryOne("PRAGMA journal_mode = WAL")?[0]
        guard mode == .text("wal") else {
            throw counter.record(
                StorageError(
                    resultCode: SQLITE_CANTOPEN,
                    message: "cannot switch database '\(path)' to WAL mode (the file system may not support it)",
                    sql: "PRAGMA journal_mode = WAL"))
        }
        // See the type's documentation: consistent after any process crash.
        try writerConnection.execute("PRAGMA synchronous = NORMAL")
        // The checkpointer waits briefly: while its log restart waits for readers, writers wait
        // for it, so a long reader (a backup) must make it give up and retry, not hold them.
        let checkpointConnection = try SQLiteConnection(
            path: path, readOnly: false, busyTimeoutMilliseconds: Checkpointer.lockWaitMilliseconds, counter: counter)
        try checkpointConnection.execute("PRAGMA synchronous = NORMAL")
        let pageSize = try checkpointConnection.queryOne("PRAGMA page_size")?.int("page_size") ?? 4096
        let writer = ConnectionSlot(
            label: "tollgate.storage.writer", connection: writerConnection, counter: counter, waits: WriteWaits.fromEnvironment())
        let checkpointer = Checkpointer(
            slot: ConnectionSlot(label: "tollgate.storage.checkpointer", connection: checkpointConnection, counter: counter),
            writer: writer, restartPages: Int64(max(1, walLimitBytes / max(512, pageSize))))
        // Checkpoints run on their own connection (see `Checkpointer`), not inside commits: the
        // hook that reports the log's size replaces SQLite's automatic checkpoint.
        writerConnection.reportLogSize(to: checkpointer)
        self.writer = writer
        self.checkpointer = checkpointer

        self.readers = try ReaderPool(keep: readers) {
            try SQLiteConnection(path: path, readOnly: true, busyTimeoutMilliseconds: timeout, counter: counter)
        }
        logger.info(
            "storage.opened", [("path", .string(path)), ("readers", .int(max(1, readers))), ("sqlite", .string(SQLiteLibrary.version))])
        if !SQLiteLibrary.hasWALResetFix {
            logger.warning(
                "storage.sqlite_without_wal_reset_fix",
                [
                    ("sqlite", .string(SQLiteLibrary.version)),
                    (
                        "advice",
                        .string("SQLite 3.51.3 fixes a rare corruption when another program writes the file beside Tollgate; see OPERATING.md")
                    )
                ])
        }
    }

    deinit {
        close()
    }

    /// Runs `body` in a transaction on the single writer connection, after the writes queued
    /// before it. Its changes are committed when it returns and rolled back when it throws;
    /// writes that queue up together share one COMMIT (each in its own savepoint), and every
    /// caller resumes only after that COMMIT.
    /// - Throws: what `body` throws, or `StorageError` (including when the database is closed
    ///   or the shared COMMIT fails).
    public func write<T: Sendable>(_ body: @Sendable (Connection) throws -> T) async throws -> T {
        try checkOpen()
        let started = MonotonicClock.now()
        defer { recordWrite(since: started) }
        return try await writer.performGrouped(body)
    }

    /// Runs `body` on a reader connection inside a read transaction, so every query in it sees the
    /// same snapshot. Readers never wait on the writer. The read runs on the calling thread: keep
    /// `body` to queries (no waiting on anything else).
    /// - Throws: what `body` throws, or `StorageError` (including when `body` tries to write).
    public func read<T: Sendable>(_ body: @Sendable (Connection) throws -> T) async throws -> T {
        try readSync(body)
    }

    /// `write` for the CLI and start-up: blocks the calling thread.
    /// - Throws: what `body` throws, or `StorageError`, also when called from inside another
    ///   `write`/`writeSync` body (use that body's connection instead).
    public func writeSync<T>(_ body: (Connection) throws -> T) throws -> T {
        try checkOpen()
        let started = MonotonicClock.now()
        defer { recordWrite(since: started) }
        let result = try writer.performSync { connection in
            try connection.transaction(.immediate, body)
        }
        checkpointer.throttle()
        return result
    }

    /// `read` for the CLI and start-up, or any code that is not async.
    /// - Throws: what `body` throws, or `StorageError`.
    public func readSync<T>(_ body: (Connection) throws -> T) throws -> T {
        try checkOpen()
        return try readers.withConnection { connection in
            try connection.transaction(.deferred, body)
        }
    }

    /// The number of `StorageError`s raised by this database so far (for `/metrics`).
    public var errorCount: Int { counter.value }

    /// How long writes took, from the call to their commit (for `/metrics`).
    public var writeLatency: Histogram { writeLatencies.withLock { $0 } }

    /// The size of the `-wal` file in bytes (0 when there is none).
    public var walBytes: Int? {
        var info = stat()
        return stat(path + "-wal", &info) == 0 ? Int(info.st_size) : 0
    }

    private func recordWrite(since started: UInt64) {
        let seconds = MonotonicClock.seconds(since: started)
        writeLatencies.withLock { $0.observe(seconds) }
    }

    /// Closes every connection after the work already queued on it; later calls throw. Idempotent.
    public func close() {
        guard closed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else {
            return
        }
        readers.close()
        checkpointer.close()
        // The writer last: the last connection to close checkpoints the WAL into the file.
        writer.close()
        writer.waits?.log(to: logger)
        logger.info("storage.closed", [("path", .string(path))])
    }

    func checkOpen() throws {
        guard !closed.load(ordering: .acquiring) else {
            throw counter.record(StorageError(resultCode: SQLITE_MISUSE, message: "the database '\(path)' is closed"))
        }
    }
}
