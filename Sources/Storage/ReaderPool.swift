import Synchronization

/// Read-only connections lent to the calling thread for one read transaction at a time.
///
/// A read runs on the thread that asks for it, with no hand-off to another thread and back:
/// reads are short CPU work on SQLite's page cache, and WAL readers never wait for the writer.
/// When every kept connection is lent out, another one is opened for the read; at most `keep`
/// idle connections are kept, the rest are closed when returned.
///
/// `@unchecked Sendable`: `idle` and `isClosed` are read and written only while holding `lock`;
/// a lent connection is used by the one thread that took it until it is returned.
final class ReaderPool: @unchecked Sendable {
    private let lock = Mutex<Void>(())
    private var idle: [SQLiteConnection] = []
    private var isClosed = false
    private let keep: Int
    private let open: () throws -> SQLiteConnection

    /// Opens `keep` connections now, so a file that cannot be read fails at start-up.
    init(keep: Int, open: @escaping @Sendable () throws -> SQLiteConnection) throws {
        self.keep = max(1, keep)
        self.open = open
        for _ in 0..<self.keep { idle.append(try open()) }
    }

    /// Runs `body` with a connection no other thread uses meanwhile.
    /// - Throws: what `body` throws, or `StorageError` when a connection cannot be opened.
    func withConnection<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        let connection = try lock.withLock { _ in idle.popLast() } ?? open()
        defer { giveBack(connection) }
        return try body(connection)
    }

    /// Closes the idle connections now and lent ones when they come back. Idempotent.
    func close() {
        let closing = lock.withLock { _ -> [SQLiteConnection] in
            isClosed = true
            defer { idle.removeAll() }
            return idle
        }
        for connection in closing { connection.close() }
    }

    private func giveBack(_ connection: SQLiteConnection) {
        let kept = lock.withLock { _ -> Bool in
            guard !isClosed, idle.count < keep else { return false }
            idle.append(connection)
            return true
        }
        if !kept { connection.close() }
    }
}
