internal import CSQLite

/// An error from SQLite or from the Storage module's own checks.
///
/// `resultCode` is SQLite's *extended* result code (for example 2067, `SQLITE_CONSTRAINT_UNIQUE`);
/// errors found by Storage itself reuse the closest SQLite code (misuse 21, mismatch 20, range 25,
/// cantopen 14, error 1). `message` is `sqlite3_errmsg` or Storage's own explanation; `sql` is the
/// statement text with its `?` placeholders. Bound values never appear in any of them.
///
/// On PostgreSQL, `sqlState` holds the server's SQLSTATE and `resultCode` the closest SQLite code
/// (23505 is `SQLITE_CONSTRAINT_UNIQUE`, 40P01 `SQLITE_BUSY`...), so callers ask the same
/// questions (`isUniqueViolation`, `isBusy`) of either backend.
public struct StorageError: Error, CustomStringConvertible, Sendable {
    /// SQLite's extended result code.
    public let resultCode: Int32
    /// What went wrong, without bound values.
    public let message: String
    /// The SQL that failed (placeholders only), when there is one.
    public let sql: String?
    /// PostgreSQL's five-character SQLSTATE, when the error came from PostgreSQL.
    public let sqlState: String?
    /// Whether this is a claim's refusal (`claimRefused(sql:)`).
    public let isClaimRefused: Bool

    /// Creates an error; Storage creates these, other modules may for tests and fakes.
    public init(resultCode: Int32, message: String, sql: String? = nil) {
        self.resultCode = resultCode
        self.message = message
        self.sql = sql
        self.sqlState = nil
        self.isClaimRefused = false
    }

    /// An error PostgreSQL reported with `sqlState` (nil for a client-side failure: a broken
    /// connection, a timeout), mapped to the closest SQLite result code.
    public init(sqlState: String?, message: String, sql: String? = nil) {
        self.resultCode = Self.sqliteCode(forSQLState: sqlState)
        self.message = message
        self.sql = sql
        self.sqlState = sqlState
        self.isClaimRefused = false
    }

    /// A claim (`SQLConnection.executeDeferredClaim`) changed no row: the key it claims was taken
    /// before this transaction came to it. Thrown where that became known (at once on SQLite; on
    /// PostgreSQL by the statement that sent the claim, or before the commit), so the body goes no
    /// further and the write rolls back. An answer, not a failure of the database: never counted
    /// among the storage errors, never run again as a conflict. Its code is SQLite's CONSTRAINT,
    /// but it is no unique violation (`isUniqueViolation` is false).
    public static func claimRefused(sql: String) -> StorageError {
        StorageError(claimRefusedBy: sql)
    }

    private init(claimRefusedBy sql: String) {
        self.resultCode = SQLITE_CONSTRAINT
        self.message = "the claim changed no row: its key was taken"
        self.sql = sql
        self.sqlState = nil
        self.isClaimRefused = true
    }

    /// The SQLite result code whose meaning is closest to a SQLSTATE.
    static func sqliteCode(forSQLState state: String?) -> Int32 {
        guard let state else { return SQLITE_IOERR }
        switch state {
        case "23505": return SQLITE_CONSTRAINT_UNIQUE_CODE
        case "23503": return SQLITE_CONSTRAINT_FOREIGNKEY_CODE
        case "23502": return SQLITE_CONSTRAINT | (5 << 8)  // NOTNULL
        case "23514": return SQLITE_CONSTRAINT | (1 << 8)  // CHECK
        case "40001", "40P01", "55P03", "57014": return SQLITE_BUSY
        case "25006": return SQLITE_READONLY
        case "53100": return SQLITE_FULL
        case "42P01", "42703", "42601", "42883", "42804", "42P18": return SQLITE_ERROR
        default:
            if state.hasPrefix("23") { return SQLITE_CONSTRAINT }
            if state.hasPrefix("08") || state.hasPrefix("57") { return SQLITE_IOERR }
            if state.hasPrefix("53") { return SQLITE_FULL }
            return SQLITE_ERROR
        }
    }

    /// The primary result code (the low byte of `resultCode`).
    public var primaryResultCode: Int32 { resultCode & 0xFF }

    /// Any constraint failed: UNIQUE, PRIMARY KEY, FOREIGN KEY, NOT NULL, CHECK.
    public var isConstraintViolation: Bool { primaryResultCode == SQLITE_CONSTRAINT }

    /// A UNIQUE or PRIMARY KEY constraint failed: the row already exists.
    public var isUniqueViolation: Bool {
        resultCode == SQLITE_CONSTRAINT_UNIQUE_CODE || resultCode == SQLITE_CONSTRAINT_PRIMARYKEY_CODE
    }

    /// A FOREIGN KEY constraint failed: the referenced row does not exist, or is still referenced.
    public var isForeignKeyViolation: Bool { resultCode == SQLITE_CONSTRAINT_FOREIGNKEY_CODE }

    /// Another connection (usually another process) held the lock for longer than the busy timeout.
    public var isBusy: Bool { primaryResultCode == SQLITE_BUSY || primaryResultCode == SQLITE_LOCKED }

    /// The database (or its directory, or its WAL) could not be written.
    public var isReadOnly: Bool { primaryResultCode == SQLITE_READONLY }

    /// Code, SQLite's name for it, the message and the SQL: safe to log (no bound values).
    public var description: String {
        if let sqlState {
            var text = "PostgreSQL error SQLSTATE \(sqlState): \(message)"
            if let sql { text += " [SQL: \(sql)]" }
            return text
        }
        var text = "SQLite error \(resultCode) (\(Self.codeDescription(resultCode))): \(message)"
        if let sql { text += " [SQL: \(sql)]" }
        return text
    }

    private static func codeDescription(_ code: Int32) -> String {
        guard let text = sqlite3_errstr(code) else { return "unknown" }
        return String(cString: text)
    }
}

// Extended codes are macros built with `|` and `<<`, which Swift does not import.
let SQLITE_CONSTRAINT_UNIQUE_CODE: Int32 = SQLITE_CONSTRAINT | (8 << 8)
let SQLITE_CONSTRAINT_PRIMARYKEY_CODE: Int32 = SQLITE_CONSTRAINT | (6 << 8)
let SQLITE_CONSTRAINT_FOREIGNKEY_CODE: Int32 = SQLITE_CONSTRAINT | (3 << 8)
