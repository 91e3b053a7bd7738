import Storage

/// Every sealed value of a table, a page at a time (`page`), and the count of those that do not open
/// under the configured key (`tollgate check`, `CheckDatabase`: a restored backup needs the keys of its time).
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

    /// Up to `pageSize` rows of `column` after row id `after`, in id order: each id and its stored value.
    /// - Throws: `StorageError`.
    public static func page(_ column: Column, after: String, on connection: Connection) throws -> [(id: String, sealed: SQLValue)] {
        try connection.query(
            "SELECT id, \(column.column) AS sealed FROM \(column.table) WHERE id > ? ORDER BY id LIMIT \(pageSize)", [after]
        ).map { (try $0.string("id"), $0["sealed"]) }
    }
}

extension SealedRowAudit.Count {
    /// Counts the rows of `page` whose value `opens` refuses; the id to read the next page after,
    /// nil when `page` was the last.
    /// - Parameter opens: whether the value of the row with this id opens (given the id and the stored value).
    public mutating func add(_ page: [(id: String, sealed: SQLValue)], opens: (String, SQLValue) -> Bool) -> String? {
        for (id, sealed) in page {
            checked += 1
            if !opens(id, sealed) {
                unreadable += 1
                if examples.count < SealedRowAudit.exampleLimit { examples.append(id) }
            }
        }
        return page.count < SealedRowAudit.pageSize ? nil : page.last?.id
    }
}
