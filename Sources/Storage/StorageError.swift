internal import CSQLite

/// An error from SQLite or from the Storage module's own checks.
///
/// `resultCode` is SQLite's *extended* result code (for example 2067, `SQLITE_CONSTRAINT_UNIQUE`);
/// errors found by Storage itself reuse the closest SQLite code (misuse 21, mismatch 20, range 25,
/// cantopen 14, error 1). `message` is `sqlite3_errmsg` or Storage's own explanation; `sql` is the
/// statement text with its `?` placeholders. Bound values never appear in any of them.
public struct StorageError: Error, CustomStringConvertible, Sendable {
    /// SQLite's extended result code.
    public let resultCode: Int32
    /// What went wrong, without bound values.
    public let message: String
    /// The SQL that failed (placeholders only), when there is one.
    public let sql: String?

    /// Creates an error; Storage creates these, other modules may for tests and fakes.
    public init(resultCode: Int32, message: String, sql: String? = nil) {
        self.resultCode = resultCode
        self.message = message
        self.sql = sql
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
