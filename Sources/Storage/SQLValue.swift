/// A value stored in or read from SQLite: one of SQLite's five storage classes.
///
/// Values are data, and data may be secret: no `SQLValue` is ever written into an error or a log.
public enum SQLValue: Sendable, Hashable {
    /// SQL NULL.
    case null
    /// A 64-bit signed integer (also booleans and millisecond timestamps).
    case integer(Int64)
    /// An IEEE double.
    case real(Double)
    /// UTF-8 text; may contain NUL characters.
    case text(String)
    /// Raw bytes; an empty blob is not NULL.
    case blob([UInt8])

    /// True for `.null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The SQLite storage class name, for error messages that must name a type but not a value.
    var typeName: String {
        switch self {
        case .null: "NULL"
        case .integer: "INTEGER"
        case .real: "REAL"
        case .text: "TEXT"
        case .blob: "BLOB"
        }
    }
}

extension SQLValue: ExpressibleByIntegerLiteral, ExpressibleByStringLiteral, ExpressibleByFloatLiteral,
    ExpressibleByNilLiteral, ExpressibleByBooleanLiteral
{
    /// `42` is `.integer(42)`.
    public init(integerLiteral value: Int64) { self = .integer(value) }
    /// `"abc"` is `.text("abc")`.
    public init(stringLiteral value: String) { self = .text(value) }
    /// `1.5` is `.real(1.5)`.
    public init(floatLiteral value: Double) { self = .real(value) }
    /// `nil` is `.null`.
    public init(nilLiteral: ()) { self = .null }
    /// `true` is `.integer(1)`, `false` is `.integer(0)` (SQLite has no boolean type).
    public init(booleanLiteral value: Bool) { self = .integer(value ? 1 : 0) }
}
