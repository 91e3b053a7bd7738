import Storage

/// Reads every sealed value of a table, a page at a time, and counts those that do not open under
/// the configured key (`tollgate check`: a restored backup needs the keys of its time).
public enum SealedRowAudit {
    /// What one table held.
    public struct Count: Sendable, Equatable {
        /// The table read.
        public var table: String
        /// Rows with a sealed value.
        public var checked = 0
        /// Rows whose value does not open.
        public var unreadable = 0
        /// The ids of the first few rows that do not open (ids only: never a value).
        public var examples: [String] = []

        public init(table: String) { self.table = table }
    }

    /// Rows per page.
    static let pageSize = 500
    /// Ids kept as examples.
    static let exampleLimit = 5

    /// A sealed column and its table (whose primary key is `id`); each module names its own.
    public struct Column: Sendable, Equatable {
        /// The table.
        public let table: String
        /// The sealed column.
        public let column: String

        /// A column the module that owns `table` declares (names are code, never input).
        public init(table: String, column: String) {
            self.table = table
            self.column = column
        }

        /// Redemption codes, sealed to show them again (`CodeVault`).
        public static let codes = Column(table: "redemption_codes", column: "code_sealed")
        /// Link-out tokens kept for reports (`LinkOutTokenVault`).
        public static let linkOutTokens = Column(table: "link_out_tokens", column: "token_sealed")
    }

    /// Counts the rows of `column` whose value `opens` refuses.
    /// - Parameter opens: whether the value of the row with this id opens (given the id and the stored value).
    /// - Throws: `StorageError`.
    public static func audit(_ column: Column, in database: Database, opens: (String, SQLValue) -> Bool) throws -> Count {
        var count = Count(table: column.table)
        var after = ""
        while true {
            let rows = try database.readSync { connection in
                try connection.query(
                    "SELECT id, \(column.column) AS sealed FROM \(column.table) WHERE id > ? ORDER BY id LIMIT \(pageSize)", [after])
            }
            for row in rows {
                let id = try row.string("id")
                count.checked += 1
                if !opens(id, row["sealed"]) {
                    count.unreadable += 1
                    if count.examples.count < exampleLimit { count.examples.append(id) }
                }
                after = id
            }
            if rows.count < pageSize { return count }
        }
    }
}
