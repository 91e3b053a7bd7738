/// One result row: values by column name or position, and typed getters that throw a
/// `StorageError` naming the column (never the value) when it is missing or of another type.
public struct Row: Sendable {
    let layout: RowLayout
    let values: [SQLValue]

    init(layout: RowLayout, values: [SQLValue]) {
        self.layout = layout
        self.values = values
    }

    /// The result's column names, in order.
    public var columnNames: [String] { layout.names }

    /// The number of columns.
    public var count: Int { values.count }

    /// The value of `column`, or `.null` when there is no such column (use the typed getters to
    /// have a missing column reported).
    public subscript(column: String) -> SQLValue {
        guard let index = layout.index(of: column) else { return .null }
        return values[index]
    }

    /// The value at `index`, or `.null` when out of range.
    public subscript(index: Int) -> SQLValue {
        values.indices.contains(index) ? values[index] : .null
    }

    /// An INTEGER column as `Int`.
    /// - Throws: `StorageError` when the column is missing, NULL or not an INTEGER.
    public func int(_ column: String) throws -> Int {
        guard let value = try optionalInt(column) else { throw nullError(column, expected: "INTEGER") }
        return value
    }

    /// An INTEGER column as `Int`, or nil when NULL.
    /// - Throws: `StorageError` when the column is missing or holds another type.
    public func optionalInt(_ column: String) throws -> Int? {
        guard let value = try optionalInt64(column) else { return nil }
        guard let narrowed = Int(exactly: value) else { throw mismatch(column, .integer(value), expected: "Int") }
        return narrowed
    }

    /// An INTEGER column as `Int64`.
    /// - Throws: `StorageError` when the column is missing, NULL or not an INTEGER.
    public func int64(_ column: String) throws -> Int64 {
        guard let value = try optionalInt64(column) else { throw nullError(column, expected: "INTEGER") }
        return value
    }

    /// An INTEGER column as `Int64`, or nil when NULL.
    /// - Throws: `StorageError` when the column is missing or holds another type.
    public func optionalInt64(_ column: String) throws -> Int64? {
        switch try value(column) {
        case .null: return nil
        case .integer(let value): return value
        case let other: throw mismatch(column, other, expected: "INTEGER")
        }
    }

    /// A TEXT column.
    /// - Throws: `StorageError` when the column is missing, NULL or not TEXT.
    public func string(_ column: String) throws -> String {
        guard let value = try optionalString(column) else { throw nullError(column, expected: "TEXT") }
        return value
    }

    /// A TEXT column, or nil when NULL.
    /// - Throws: `StorageError` when the column is missing or holds another type.
    public func optionalString(_ column: String) throws -> String? {
        switch try value(column) {
        case .null: return nil
        case .text(let value): return value
        case let other: throw mismatch(column, other, expected: "TEXT")
        }
    }

    /// A REAL column (an INTEGER is widened).
    /// - Throws: `StorageError` when the column is missing, NULL or not numeric.
    public func double(_ column: String) throws -> Double {
        guard let value = try optionalDouble(column) else { throw nullError(column, expected: "REAL") }
        return value
    }

    /// A REAL column (an INTEGER is widened), or nil when NULL.
    /// - Throws: `StorageError` when the column is missing or holds another type.
    public func optionalDouble(_ column: String) throws -> Double? {
        switch try value(column) {
        case .null: return nil
        case .real(let value): return value
        case .integer(let value): return Double(value)
        case let other: throw mismatch(column, other, expected: "REAL")
        }
    }

    /// An INTEGER column read as a boolean: 0 is false, anything else true.
    /// - Throws: `StorageError` when the column is missing, NULL or not an INTEGER.
    public func bool(_ column: String) throws -> Bool {
        guard let value = try optionalBool(column) else { throw nullError(column, expected: "INTEGER (boolean)") }
        return value
    }

    /// An INTEGER column read as a boolean, or nil when NULL.
    /// - Throws: `StorageError` when the column is missing or holds another type.
    public func optionalBool(_ column: String) throws -> Bool? {
        switch try value(column) {
        case .null: return nil
        case .integer(let value): return value != 0
        case let other: throw mismatch(column, other, expected: "INTEGER (boolean)")
        }
    }

    /// A BLOB column.
    /// - Throws: `StorageError` when the column is missing, NULL or not a BLOB.
    public func blob(_ column: String) throws -> [UInt8] {
        guard let value = try optionalBlob(column) else { throw nullError(column, expected: "BLOB") }
        return value
    }

    /// A BLOB column, or nil when NULL.
    /// - Throws: `StorageError` when the column is missing or holds another type.
    public func optionalBlob(_ column: String) throws -> [UInt8]? {
        switch try value(column) {
        case .null: return nil
        case .blob(let value): return value
        case let other: throw mismatch(column, other, expected: "BLOB")
        }
    }

    private func value(_ column: String) throws -> SQLValue {
        guard let index = layout.index(of: column) else {
            let available = layout.names.joined(separator: ", ")
            throw layout.counter.record(
                StorageError(
                    resultCode: 25,  // SQLITE_RANGE
                    message: "no column '\(column)' in the result (columns: \(available))"))
        }
        return values[index]
    }

    private func mismatch(_ column: String, _ value: SQLValue, expected: String) -> StorageError {
        layout.counter.record(
            StorageError(
                resultCode: 20,  // SQLITE_MISMATCH
                message: "column '\(column)' holds \(value.typeName), expected \(expected)"))
    }

    private func nullError(_ column: String, expected: String) -> StorageError {
        mismatch(column, .null, expected: expected)
    }
}
