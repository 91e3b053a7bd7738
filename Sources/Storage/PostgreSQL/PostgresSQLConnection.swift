import Postgres

/// A `SQLConnection` over one PostgreSQL connection, for the length of one transaction.
///
/// Statements are the portable SQL of the repositories: their `?` placeholders are numbered for
/// PostgreSQL, their values bound as PostgreSQL values (integers as `int8`, booleans as the
/// integers 0 and 1 the schema stores them as, bytes as `bytea`, text untyped so the server
/// infers it), and result values read back as the SQLite storage classes the repositories
/// expect (`boolean` as 0 or 1, a whole `numeric` such as `SUM`'s as an integer). Errors become
/// `StorageError` with the SQLSTATE, never with a bound value.
final class PostgresSQLConnection: SQLConnection {
    let connection: PostgresConnection
    private let placeholders: PostgresPlaceholders
    private let counter: ErrorCounter
    /// The first serialization failure or deadlock a statement of this transaction met, kept even
    /// when the body catches it (the transaction is then aborted; `PostgresDatabase` runs it again).
    private(set) var conflict: StorageError?
    /// The portable SQL of the statements deferred and not sent yet, in order (an error names
    /// the one that failed).
    private(set) var deferredSQL: [String] = []

    init(_ connection: PostgresConnection, placeholders: PostgresPlaceholders, counter: ErrorCounter) {
        self.connection = connection
        self.placeholders = placeholders
        self.counter = counter
    }

    var dialect: SQLDialect { .postgresql }

    func execute(_ sql: String, _ arguments: [any SQLBindable]) throws {
        _ = try result(sql, arguments)
    }

    func executeDeferred(_ sql: String, _ arguments: [any SQLBindable]) throws {
        try queue(sql, arguments, with: connection.executeDeferred)
    }

    func executeDeferredClaim(_ sql: String, _ arguments: [any SQLBindable]) throws {
        try queue(sql, arguments, with: connection.executeDeferredClaim)
    }

    /// Queues `sql` on the connection with `enqueue` and remembers it, so an error reported later
    /// names it.
    private func queue(_ sql: String, _ arguments: [any SQLBindable], with enqueue: (String, [PostgresValue]) throws -> Void) throws {
        do {
            try enqueue(placeholders.numbered(sql), arguments.map { Self.postgresValue($0.sqlValue) })
            deferredSQL.append(sql)
        } catch let error as PostgresError {
            throw counter.record(Self.storageError(error, sql: sql))
        }
    }

    /// The statement an error names: a deferred one when one of them failed, else `sql`.
    func failedSQL(_ error: PostgresError, else sql: String?) -> String? {
        guard let index = error.deferredStatement, deferredSQL.indices.contains(index) else { return sql }
        return deferredSQL[index]
    }

    func query(_ sql: String, _ arguments: [any SQLBindable]) throws -> [Row] {
        let result = try result(sql, arguments)
        guard !result.rows.isEmpty else { return [] }
        let layout = RowLayout(names: result.columns.names, counter: counter)
        let types = result.columns.columns.map(\.typeOID)
        return result.rows.map { row in
            Row(layout: layout, values: zip(row.values, types).map { Self.sqlValue($0, type: $1) })
        }
    }

    func queryOne(_ sql: String, _ arguments: [any SQLBindable]) throws -> Row? {
        try query(sql, arguments).first
    }

    @discardableResult
    func run(_ sql: String, _ arguments: [any SQLBindable]) throws -> Int {
        try result(sql, arguments).rowsAffected
    }

    func executeScript(_ sql: String) throws {
        defer { if !connection.hasDeferredStatements { deferredSQL.removeAll() } }
        do {
            try connection.executeScript(sql)
        } catch let error as PostgresError {
            throw counter.record(Self.storageError(error, sql: failedSQL(error, else: sql)))
        }
    }

    private func result(_ sql: String, _ arguments: [any SQLBindable]) throws -> PostgresResult {
        let text = placeholders.numbered(sql)
        defer { if !connection.hasDeferredStatements { deferredSQL.removeAll() } }
        do {
            return try connection.query(text, arguments.map { Self.postgresValue($0.sqlValue) })
        } catch let error as PostgresError {
            if error.kind == .claimRefused { throw StorageError.claimRefused(sql: failedSQL(error, else: nil) ?? sql) }
            let storageError = Self.storageError(error, sql: failedSQL(error, else: sql))
            if Self.isConflict(storageError) {
                // Counted only if the retries give up (`PostgresDatabase`).
                if conflict == nil { conflict = storageError }
                throw storageError
            }
            throw counter.record(storageError)
        }
    }

    // MARK: Values

    static func postgresValue(_ value: SQLValue) -> PostgresValue {
        switch value {
        case .null: .null
        case .integer(let value): .int(value)
        case .real(let value): .double(value)
        case .text(let value): .text(value)
        case .blob(let value): .bytes(value)
        }
    }

    /// `numeric`'s type OID: aggregates over `bigint` (`SUM`) return it.
    private static let numericOID: UInt32 = 1700

    static func sqlValue(_ value: PostgresValue, type: UInt32) -> SQLValue {
        switch value {
        case .null: return .null
        case .int(let value): return .integer(value)
        case .double(let value): return .real(value)
        case .bytes(let value): return .blob(value)
        case .bool(let value): return .integer(value ? 1 : 0)
        case .text(let value):
            if type == numericOID {
                if let whole = Int64(value) { return .integer(whole) }
                if let fraction = Double(value) { return .real(fraction) }
            }
            return .text(value)
        }
    }

    // MARK: Errors

    /// A serialization failure (40001) or a deadlock (40P01): the transaction lost a race with
    /// another and is worth running again from the start.
    static func isConflict(_ error: StorageError) -> Bool {
        error.sqlState == "40001" || error.sqlState == "40P01"
    }

    /// A unique violation (23505) that escaped a write's body uncaught: another transaction
    /// inserted the same key since this one looked (at `READ COMMITTED`, or at `SERIALIZABLE` when
    /// this one had not read the key: PostgreSQL then reports 23505, not 40001, and its
    /// documentation advises retrying it too). Run again, the body sees the other's row and takes
    /// its "already there" branch; a body that inserts a duplicate by itself fails the same way
    /// each time and its error is passed on.
    static func isInsertRace(_ error: StorageError) -> Bool {
        error.sqlState == "23505"
    }

    /// A `PostgresError` as a `StorageError`: the server's SQLSTATE, or the SQLSTATE class that
    /// fits a client-side failure (a broken connection is 08006, a timeout 57014).
    static func storageError(_ error: PostgresError, sql: String?) -> StorageError {
        let state: String? =
            switch error.kind {
            case .server: error.sqlState
            case .timeout: "57014"
            case .connection, .closed, .tls, .protocolViolation: "08006"
            case .pool: "08004"
            case .authentication: "28000"
            case .configuration: "08001"
            case .transactionRolledBack: "40000"
            case .invalidArgument: "22023"
            case .decoding: "22000"
            case .claimRefused: nil  // Answered as `StorageError.claimRefused` where it is met, never as this.
            }
        return StorageError(sqlState: state, message: error.message, sql: sql)
    }
}
