/// A Swift value that can be bound to a `?` parameter of a statement.
public protocol SQLBindable {
    /// The value SQLite receives.
    var sqlValue: SQLValue { get }
}

extension SQLValue: SQLBindable {
    public var sqlValue: SQLValue { self }
}

extension Int: SQLBindable {
    public var sqlValue: SQLValue { .integer(Int64(self)) }
}

extension Int64: SQLBindable {
    public var sqlValue: SQLValue { .integer(self) }
}

extension Int32: SQLBindable {
    public var sqlValue: SQLValue { .integer(Int64(self)) }
}

extension String: SQLBindable {
    public var sqlValue: SQLValue { .text(self) }
}

extension Double: SQLBindable {
    public var sqlValue: SQLValue { .real(self) }
}

/// Booleans are stored as 0 and 1 (an INTEGER in SQLite; `BOOLEAN` columns in PostgreSQL accept the cast).
extension Bool: SQLBindable {
    public var sqlValue: SQLValue { .integer(self ? 1 : 0) }
}

/// Byte arrays are bound as BLOBs; an empty array is an empty BLOB, not NULL.
extension Array: SQLBindable where Element == UInt8 {
    public var sqlValue: SQLValue { .blob(self) }
}

/// `nil` binds NULL; a wrapped value binds as itself.
extension Optional: SQLBindable where Wrapped: SQLBindable {
    public var sqlValue: SQLValue {
        switch self {
        case .none: .null
        case .some(let wrapped): wrapped.sqlValue
        }
    }
}
