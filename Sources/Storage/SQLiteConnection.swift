internal import CSQLite

/// One SQLite connection with its prepared-statement cache.
///
/// Not Sendable: a connection is used by one thread at a time, which `SQLiteDatabase` guarantees by
/// only touching it from its own serial queue. Statements are prepared once per SQL text and
/// reused (reset and bindings cleared after every use); values are always bound, never spliced
/// into SQL, and never appear in errors.
public final class SQLiteConnection: SQLConnection {
    /// The open handle; nil once closed.
    private var handle: OpaquePointer?
    /// The checkpointer the WAL hook reports to, retained until the handle closes.
    private var logObserver: Unmanaged<Checkpointer>?
    private var statements: [StatementKey: Statement] = [:]
    private let argumentBuffer = BindArena()
    let counter: ErrorCounter
    var savepointDepth = 0

    /// Bounds the cache; SQL text in this application is a fixed set, so this only guards
    /// against a caller building SQL dynamically.
    static let statementCacheLimit = 256

    /// SQLite.
    public var dialect: SQLDialect { .sqlite }

    /// Opens `path` for reading and writing (creating it) or read-only, in multi-thread mode
    /// (`NOMUTEX`: each connection is confined to one thread at a time) with extended result codes.
    init(path: String, readOnly: Bool, busyTimeoutMilliseconds: Int32, counter: ErrorCounter) throws {
        _ = SQLiteConnection.processSettings
        self.counter = counter
        var db: OpaquePointer?
        // A new database file is made 0600 first: SQLite would create it 0644 (and its -wal and -shm
        // after it), readable by every user of the machine.
        if !readOnly, !path.isEmpty, path != ":memory:", !path.hasPrefix("file:"), let reason = FileSystem.createPrivateFile(path) {
            throw counter.record(StorageError(resultCode: SQLITE_CANTOPEN, message: "cannot open database '\(path)': \(reason)"))
        }
        let access = readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        let flags = access | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        let code = sqlite3_open_v2(path, &db, flags, nil)
        guard code == SQLITE_OK, let db else {
            let detail = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(db)
            throw counter.record(StorageError(resultCode: code, message: "cannot open database '\(path)': \(detail)"))
        }
        handle = db
        try check(tollgate_sqlite_busy_timeout(db, busyTimeoutMilliseconds), sql: nil)
        // Double-quoted strings are identifiers only, as in PostgreSQL; the SQLite default
        // (falling back to a string literal) hides typos and non-portable SQL.
        var ignored: Int32 = 0
        try check(tollgate_sqlite_db_config_int(db, SQLITE_DBCONFIG_DQS_DML, 0, &ignored), sql: nil)
        try check(tollgate_sqlite_db_config_int(db, SQLITE_DBCONFIG_DQS_DDL, 0, &ignored), sql: nil)
        try execute("PRAGMA foreign_keys = ON")
        // Statement journals (a statement inside a savepoint, as in every group commit) and
        // sorts stay in memory instead of temporary files created and deleted in /var/tmp.
        try execute("PRAGMA temp_store = MEMORY")
        // Pages are read straight from a memory map of the file (up to `mmapBytes`) instead of a
        // read() into SQLite's own cache each time: with a million purchases the tables outgrow
        // that cache and every redemption read a dozen pages back from the kernel.
        try execute("PRAGMA mmap_size = \(Self.mmapBytes)")
    }

    /// How much of the database file each connection maps (1 GiB of address space, not memory).
    static let mmapBytes = 1 << 30

    /// Process-wide SQLite settings, applied once before the first connection opens.
    private static let processSettings: Void = {
        // Fails only if SQLite was already initialized by someone else: then the defaults stay.
        _ = tollgate_sqlite_disable_memory_statistics()
    }()

    deinit {
        close()
    }

    /// Finalizes cached statements and closes the handle; later calls throw. Idempotent.
    func close() {
        statements.removeAll()
        if let handle {
            // close_v2 cannot fail for a valid handle; it defers if a statement is still alive.
            sqlite3_close_v2(handle)
        }
        handle = nil
        logObserver?.release()
        logObserver = nil
    }

    /// Tells `checkpointer` after each commit on this connection how many pages the WAL then
    /// holds (SQLite's WAL hook, which also replaces its automatic checkpoint).
    func reportLogSize(to checkpointer: Checkpointer) {
        guard let handle, logObserver == nil else { return }
        let observer = Unmanaged.passRetained(checkpointer)
        logObserver = observer
        sqlite3_wal_hook(
            handle,
            { context, _, _, pages in
                if let context { Unmanaged<Checkpointer>.fromOpaque(context).takeUnretainedValue().noteLog(pages: Int64(pages)) }
                return SQLITE_OK
            }, observer.toOpaque())
    }

    /// Syncs the main database file to disk (fdatasync) through SQLite's own handle.
    /// - Throws: `StorageError` when the connection is closed or the sync fails.
    func syncDatabaseFile() throws {
        try check(tollgate_sqlite_sync_file(try openHandle(), SQLITE_FCNTL_FILE_POINTER), sql: nil)
    }

    /// Syncs the write-ahead log to disk (fdatasync) through SQLite's own handle.
    /// - Throws: `StorageError` when the connection is closed, has not opened the log, or the
    ///   sync fails.
    func syncLogFile() throws {
        try check(tollgate_sqlite_sync_file(try openHandle(), SQLITE_FCNTL_JOURNAL_POINTER), sql: nil)
    }

    /// The number of cached prepared statements (for tests).
    var cachedStatementCount: Int { statements.count }

    /// The raw handle for the backup API and transaction state checks.
    func openHandle() throws -> OpaquePointer {
        guard let handle else {
            throw counter.record(StorageError(resultCode: SQLITE_MISUSE, message: "the connection is closed"))
        }
        return handle
    }

    // MARK: - Running statements

    /// Runs a statement that returns no rows (DDL, INSERT/UPDATE/DELETE without RETURNING, PRAGMA
    /// assignments). Any rows it does return are stepped through and discarded.
    /// - Throws: `StorageError` on a SQL error, a constraint violation or a wrong argument count.
    public func execute(_ sql: String, _ arguments: [any SQLBindable] = []) throws {
        let statement = try prepared(sql, arguments)
        defer { statement.reset() }
        while try step(statement, sql) {}
    }

    /// Runs a query and returns all its rows.
    /// - Throws: `StorageError` on a SQL error, a constraint violation or a wrong argument count.
    public func query(_ sql: String, _ arguments: [any SQLBindable] = []) throws -> [Row] {
        let statement = try prepared(sql, arguments)
        defer { statement.reset() }
        var rows: [Row] = []
        guard try step(statement, sql) else { return rows }
        let layout = makeLayout(statement)
        repeat {
            rows.append(Row(layout: layout, values: readValues(statement, count: layout.names.count)))
        } while try step(statement, sql)
        return rows
    }

    /// Runs a query and returns its first row, or nil; later rows are not computed.
    /// - Throws: `StorageError` on a SQL error, a constraint violation or a wrong argument count.
    public func queryOne(_ sql: String, _ arguments: [any SQLBindable] = []) throws -> Row? {
        let statement = try prepared(sql, arguments)
        defer { statement.reset() }
        guard try step(statement, sql) else { return nil }
        let layout = makeLayout(statement)
        return Row(layout: layout, values: readValues(statement, count: layout.names.count))
    }

    /// Runs an INSERT, UPDATE or DELETE and returns the number of rows it changed.
    /// - Throws: `StorageError` on a SQL error, a constraint violation or a wrong argument count.
    @discardableResult
    public func run(_ sql: String, _ arguments: [any SQLBindable] = []) throws -> Int {
        let db = try openHandle()
        try execute(sql, arguments)
        return Int(sqlite3_changes64(db))
    }

    /// Runs several `;`-separated statements without arguments (migrations, schema scripts).
    /// Not cached. Does not open a transaction of its own.
    /// - Throws: `StorageError` for the first statement that fails; later ones do not run.
    public func executeScript(_ sql: String) throws {
        let db = try openHandle()
        var errorMessage: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(db, sql, nil, nil, &errorMessage)
        guard code == SQLITE_OK else {
            let message = errorMessage.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(db))
            sqlite3_free(errorMessage)
            throw counter.record(StorageError(resultCode: sqlite3_extended_errcode(db), message: message, sql: sql))
        }
    }

    // MARK: - Internals

    /// The cached statement for `sql` (prepared on first use) with `arguments` bound.
    private func prepared(_ sql: String, _ arguments: [any SQLBindable]) throws -> Statement {
        let statement: Statement
        let key = StatementKey(sql: sql)
        if let cached = statements[key] {
            statement = cached
        } else {
            statement = try prepare(sql)
            if statements.count >= Self.statementCacheLimit { statements.removeAll(keepingCapacity: true) }
            statements[key] = statement
        }
        do {
            try bind(arguments, to: statement, sql: sql)
        } catch {
            statement.reset()
            throw error
        }
        return statement
    }

    private func prepare(_ sql: String) throws -> Statement {
        let db = try openHandle()
        var raw: OpaquePointer?
        var remainder = ""
        let code = sql.withCString { text -> Int32 in
            var tail: UnsafePointer<CChar>?
            let code = sqlite3_prepare_v3(db, text, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &raw, &tail)
            if code == SQLITE_OK, let tail { remainder = String(cString: tail) }
            return code
        }
        guard code == SQLITE_OK else { throw error(code, sql: sql) }
        guard let raw else {
            throw counter.record(StorageError(resultCode: SQLITE_MISUSE, message: "the SQL contains no statement", sql: sql))
        }
        let statement = Statement(handle: raw)
        if !remainder.allSatisfy({ $0.isWhitespace || $0 == ";" }) {
            throw counter.record(
                StorageError(
                    resultCode: SQLITE_MISUSE,
                    message: "the SQL contains more than one statement; use executeScript for scripts", sql: sql))
        }
        return statement
    }

    private func bind(_ arguments: [any SQLBindable], to statement: Statement, sql: String) throws {
        let handle = statement.handle
        let expected = Int(sqlite3_bind_parameter_count(handle))
        guard expected == arguments.count else {
            throw counter.record(
                StorageError(
                    resultCode: SQLITE_RANGE,
                    message: "the statement has \(expected) parameter(s) but \(arguments.count) argument(s) were given",
                    sql: sql))
        }
        let transient = tollgate_sqlite_transient()
        argumentBuffer.restart()
        for (offset, argument) in arguments.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch argument.sqlValue {
            case .null:
                code = sqlite3_bind_null(handle, index)
            case .integer(let value):
                code = sqlite3_bind_int64(handle, index, value)
            case .real(let value):
                code = sqlite3_bind_double(handle, index, value)
            case .text(let value):
                // Read in place (copying the string to call `withUTF8` costs a retain and a release).
                code =
                    value.utf8.withContiguousStorageIfAvailable { bindText(UnsafeRawBufferPointer($0), at: index, of: handle) }
                    ?? Array(value.utf8).withUnsafeBytes { bindText($0, at: index, of: handle) }
            case .blob(let value):
                code = value.withUnsafeBytes { bytes in
                    guard let base = bytes.baseAddress, !bytes.isEmpty else {
                        return sqlite3_bind_zeroblob(handle, index, 0)
                    }
                    if let copy = self.argumentBuffer.copy(bytes) {
                        return sqlite3_bind_blob64(handle, index, copy, UInt64(bytes.count), nil)
                    }
                    return sqlite3_bind_blob64(handle, index, base, UInt64(bytes.count), transient)
                }
            }
            guard code == SQLITE_OK else { throw error(code, sql: sql) }
        }
    }

    /// Binds UTF-8 text: from the connection's `BindArena` (`SQLITE_STATIC`) when it fits, else
    /// copied by SQLite.
    private func bindText(_ bytes: UnsafeRawBufferPointer, at index: Int32, of handle: OpaquePointer) -> Int32 {
        // An empty buffer may have no base address, and a NULL pointer would bind NULL.
        guard let base = bytes.baseAddress, !bytes.isEmpty else {
            return sqlite3_bind_text(handle, index, "", 0, tollgate_sqlite_transient())
        }
        let count = UInt64(bytes.count)
        if let copy = argumentBuffer.copy(bytes) {
            return sqlite3_bind_text64(handle, index, copy.assumingMemoryBound(to: CChar.self), count, nil, UInt8(SQLITE_UTF8))
        }
        return sqlite3_bind_text64(
            handle, index, base.assumingMemoryBound(to: CChar.self), count, tollgate_sqlite_transient(), UInt8(SQLITE_UTF8))
    }

    /// Steps once: true for a row, false when done.
    private func step(_ statement: Statement, _ sql: String) throws -> Bool {
        let code = sqlite3_step(statement.handle)
        if code == SQLITE_ROW { return true }
        if code == SQLITE_DONE { return false }
        throw error(code, sql: sql)
    }

    private func makeLayout(_ statement: Statement) -> RowLayout {
        if let layout = statement.layout { return layout }
        let layout = buildLayout(statement)
        statement.layout = layout
        return layout
    }

    private func buildLayout(_ statement: Statement) -> RowLayout {
        let count = Int(sqlite3_column_count(statement.handle))
        var names: [String] = []
        names.reserveCapacity(count)
        for column in 0..<Int32(count) {
            names.append(sqlite3_column_name(statement.handle, column).map { String(cString: $0) } ?? "")
        }
        return RowLayout(names: names, counter: counter)
    }

    private func readValues(_ statement: Statement, count: Int) -> [SQLValue] {
        let handle = statement.handle
        var values: [SQLValue] = []
        values.reserveCapacity(count)
        for column in 0..<Int32(count) {
            switch sqlite3_column_type(handle, column) {
            case SQLITE_INTEGER:
                values.append(.integer(sqlite3_column_int64(handle, column)))
            case SQLITE_FLOAT:
                values.append(.real(sqlite3_column_double(handle, column)))
            case SQLITE_TEXT:
                // column_text before column_bytes, as the SQLite documentation requires.
                let text = sqlite3_column_text(handle, column)
                let length = Int(sqlite3_column_bytes(handle, column))
                guard let text else { values.append(.text("")); continue }
                values.append(.text(String(decoding: UnsafeBufferPointer(start: text, count: length), as: UTF8.self)))
            case SQLITE_BLOB:
                let bytes = sqlite3_column_blob(handle, column)
                let length = Int(sqlite3_column_bytes(handle, column))
                guard let bytes, length > 0 else { values.append(.blob([])); continue }
                values.append(.blob(Array(UnsafeRawBufferPointer(start: bytes, count: length))))
            default:
                values.append(.null)
            }
        }
        return values
    }

    /// Throws unless `code` is `SQLITE_OK`.
    func check(_ code: Int32, sql: String?) throws {
        guard code != SQLITE_OK else { return }
        throw error(code, sql: sql)
    }

    /// A counted error for `code` with the connection's current message.
    func error(_ code: Int32, sql: String?) -> StorageError {
        let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "the connection is closed"
        return counter.record(StorageError(resultCode: code, message: message, sql: sql))
    }
}
