/// One result row: values by column name or position, and typed getters that throw a
/// `PostgresError` (`.decoding`) naming the column (never the value) when it is missing, NULL
/// or of another type.
public struct PostgresRow: Sendable {
    /// The result's columns.
    public let columns: PostgresColumns
    /// The values, one per column.
    public let values: [PostgresValue]

    init(columns: PostgresColumns, values: [PostgresValue]) {
        self.columns = columns
        self.values = values
    }

    /// The value of `column`, or `.null` when there is no such column.
    public subscript(column: String) -> PostgresValue {
        guard let index = columns.index(of: column) else { return .null }
        return values[index]
    }

    /// The value at `index`, or `.null` when out of range.
    public subscript(index: Int) -> PostgresValue {
        values.indices.contains(index) ? values[index] : .null
    }

    /// An integer column.
    /// - Throws: `PostgresError` (`.decoding`) when missing, NULL or not an integer.
    public func int(_ column: String) throws -> Int64 {
        try required(column, "an integer", optionalInt(column))
    }

    /// An integer column, or nil when NULL.
    /// - Throws: `PostgresError` (`.decoding`) when missing or of another type.
    public func optionalInt(_ column: String) throws -> Int64? {
        switch try value(column) {
        case .null: return nil
        case .int(let value): return value
        case let other: throw mismatch(column, other, "an integer")
        }
    }

    /// A float column (an integer column is widened).
    /// - Throws: `PostgresError` (`.decoding`) when missing, NULL or not numeric.
    public func double(_ column: String) throws -> Double {
        try required(column, "a float", optionalDouble(column))
    }

    /// A float column (an integer column is widened), or nil when NULL.
    /// - Throws: `PostgresError` (`.decoding`) when missing or of another type.
    public func optionalDouble(_ column: String) throws -> Double? {
        switch try value(column) {
        case .null: return nil
        case .double(let value): return value
        case .int(let value): return Double(value)
        case let other: throw mismatch(column, other, "a float")
        }
    }

    /// A text column (any type the client does not decode, `numeric` included, reads as text).
    /// - Throws: `PostgresError` (`.decoding`) when missing, NULL or decoded as another type.
    public func string(_ column: String) throws -> String {
        try required(column, "text", optionalString(column))
    }

    /// A text column, or nil when NULL.
    /// - Throws: `PostgresError` (`.decoding`) when missing or of another type.
    public func optionalString(_ column: String) throws -> String? {
        switch try value(column) {
        case .null: return nil
        case .text(let value): return value
        case let other: throw mismatch(column, other, "text")
        }
    }

    /// A boolean column.
    /// - Throws: `PostgresError` (`.decoding`) when missing, NULL or not a boolean.
    public func bool(_ column: String) throws -> Bool {
        try required(column, "a boolean", optionalBool(column))
    }

    /// A boolean column, or nil when NULL.
    /// - Throws: `PostgresError` (`.decoding`) when missing or of another type.
    public func optionalBool(_ column: String) throws -> Bool? {
        switch try value(column) {
        case .null: return nil
        case .bool(let value): return value
        case let other: throw mismatch(column, other, "a boolean")
        }
    }

    /// A `bytea` column.
    /// - Throws: `PostgresError` (`.decoding`) when missing, NULL or not bytea.
    public func bytes(_ column: String) throws -> [UInt8] {
        try required(column, "bytea", optionalBytes(column))
    }

    /// A `bytea` column, or nil when NULL.
    /// - Throws: `PostgresError` (`.decoding`) when missing or of another type.
    public func optionalBytes(_ column: String) throws -> [UInt8]? {
        switch try value(column) {
        case .null: return nil
        case .bytes(let value): return value
        case let other: throw mismatch(column, other, "bytea")
        }
    }

    private func value(_ column: String) throws -> PostgresValue {
        guard let index = columns.index(of: column) else {
            throw PostgresError(.decoding, "no column '\(column)' in the result (columns: \(columns.names.joined(separator: ", ")))")
        }
        return values[index]
    }

    private func required<T>(_ column: String, _ expected: String, _ value: T?) throws -> T {
        guard let value else { throw PostgresError(.decoding, "column '\(column)' is NULL, expected \(expected)") }
        return value
    }

    private func mismatch(_ column: String, _ value: PostgresValue, _ expected: String) -> PostgresError {
        PostgresError(.decoding, "column '\(column)' holds \(value.typeName), expected \(expected)")
    }
}
