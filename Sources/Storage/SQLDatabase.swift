import Foundation
import Logging

/// What the domain and the use cases see of a SQL database: statements with bound arguments
/// and typed rows (`SQLConnection`) inside transactions (`SQLDatabase`). SQLite implements it
/// (`SQLiteDatabase`); a second backend implements the same two protocols. SQL written against
/// them stays portable (see CONVENTIONS.md: application ids, integer milliseconds, `ON CONFLICT`,
/// `RETURNING`).
public protocol SQLConnection: AnyObject {
    /// The SQL this connection speaks (for the few dialect hooks; see `SQLDialect`).
    var dialect: SQLDialect { get }
    /// Runs a statement that returns no rows.
    /// - Throws: `StorageError`.
    func execute(_ sql: String, _ arguments: [any SQLBindable]) throws
    /// Runs a statement whose outcome the caller does not read, inside a write transaction: a
    /// backend may send it with the next statement that needs an answer, or with the commit,
    /// instead of waiting for it now (PostgreSQL pipelines it; SQLite runs it at once). An error
    /// it meets is thrown by that later statement or by the commit, and the transaction rolls
    /// back, so use it only where the body would not catch this statement's own error.
    /// - Throws: `StorageError` (now, or from a later statement).
    func executeDeferred(_ sql: String, _ arguments: [any SQLBindable]) throws
    /// Runs a claim, as `executeDeferred` runs a statement: an INSERT, UPDATE or DELETE that must
    /// change a row (an insert of a key with `ON CONFLICT DO NOTHING` claims that key). When it
    /// changes none, `StorageError.claimRefused` is thrown as soon as that is known (SQLite: now; PostgreSQL:
    /// by the statement that sends it, or before the commit, never after it), and the write
    /// rolls back when its body lets the error out, as it must: a body that caught it would
    /// commit what it did before.
    /// - Throws: `StorageError` (now, or from a later statement; `isClaimRefused` for the refusal).
    func executeDeferredClaim(_ sql: String, _ arguments: [any SQLBindable]) throws
    /// Runs a query and returns all its rows.
    /// - Throws: `StorageError`.
    func query(_ sql: String, _ arguments: [any SQLBindable]) throws -> [Row]
    /// Runs a query and returns its first row, or nil.
    /// - Throws: `StorageError`.
    func queryOne(_ sql: String, _ arguments: [any SQLBindable]) throws -> Row?
    /// Runs an INSERT, UPDATE or DELETE and returns how many rows it changed.
    /// - Throws: `StorageError`.
    @discardableResult
    func run(_ sql: String, _ arguments: [any SQLBindable]) throws -> Int
    /// Runs several `;`-separated statements without arguments (migrations).
    /// - Throws: `StorageError`.
    func executeScript(_ sql: String) throws
}

extension SQLConnection {
    /// A backend that runs every statement at once: `execute`.
    public func executeDeferred(_ sql: String, _ arguments: [any SQLBindable]) throws { try execute(sql, arguments) }
    /// A backend that runs every statement at once: `run`, refused when it changed no row.
    public func executeDeferredClaim(_ sql: String, _ arguments: [any SQLBindable]) throws {
        guard try run(sql, arguments) > 0 else { throw StorageError.claimRefused(sql: sql) }
    }
    /// `execute` without arguments.
    public func execute(_ sql: String) throws { try execute(sql, []) }
    /// `query` without arguments.
    public func query(_ sql: String) throws -> [Row] { try query(sql, []) }
    /// `queryOne` without arguments.
    public func queryOne(_ sql: String) throws -> Row? { try queryOne(sql, []) }
    /// `run` without arguments.
    @discardableResult
    public func run(_ sql: String) throws -> Int { try run(sql, []) }
}

/// A connection inside a transaction, whichever backend it belongs to.
public typealias Connection = any SQLConnection

/// A database: `write` bodies run in one transaction (committed when they return, rolled back when
/// they throw) that behaves as if it were the only writer (SQLite has one writer at a time;
/// PostgreSQL runs writers at once and, on a conflict, runs a body again: a `write` body must
/// have no effect outside the database but a wake-up or a log line); `read` bodies see one snapshot.
public protocol SQLDatabase: Sendable {
    /// The SQL this database speaks.
    var dialect: SQLDialect { get }
    /// Where the database logs (opening, migrations, failures).
    var logger: Logger { get }
    /// - Throws: what `body` throws (the transaction rolls back), `StorageError`.
    func write<T: Sendable>(_ body: @Sendable (Connection) throws -> T) async throws -> T
    /// - Throws: what `body` throws, `StorageError`.
    func read<T: Sendable>(_ body: @Sendable (Connection) throws -> T) async throws -> T
    /// `write` for callers outside async code (the CLI, tests). Blocks the calling thread.
    func writeSync<T>(_ body: (Connection) throws -> T) throws -> T
    /// `write` at an isolation other than the default (see `WriteIsolation`).
    /// - Throws: what `body` throws (the transaction rolls back), `StorageError`.
    func write<T: Sendable>(isolation: WriteIsolation, _ body: @Sendable (Connection) throws -> T) async throws -> T
    /// `writeSync` at an isolation other than the default (see `WriteIsolation`).
    func writeSync<T>(isolation: WriteIsolation, _ body: (Connection) throws -> T) throws -> T
    /// `read` for callers outside async code. Blocks the calling thread.
    func readSync<T>(_ body: (Connection) throws -> T) throws -> T
    /// Throws unless a write can commit now (`/readyz`).
    func checkWritable() async throws
    /// Storage errors seen so far (`/metrics`).
    var errorCount: Int { get }
    /// How long `write` calls took, from the call to their commit, since the database was opened
    /// (`/metrics`).
    var writeLatency: Histogram { get }
    /// The size of the write-ahead log in bytes, for backends that keep one in a file; nil otherwise.
    var walBytes: Int? { get }
    /// Closes every connection; later calls throw.
    func close()
}

extension SQLDatabase {
    /// A backend with one writer at a time: every write is serializable, whatever is asked.
    public func write<T: Sendable>(isolation: WriteIsolation, _ body: @Sendable (Connection) throws -> T) async throws -> T {
        try await write(body)
    }

    /// A backend with one writer at a time: every write is serializable, whatever is asked.
    public func writeSync<T>(isolation: WriteIsolation, _ body: (Connection) throws -> T) throws -> T {
        try writeSync(body)
    }
}

/// The database, whichever backend it is.
public typealias Database = any SQLDatabase
