/// A parameter sent to, or a column value read from, PostgreSQL.
///
/// Parameters go out in binary for integers (`int8`), doubles (`float8`), booleans and bytes
/// (`bytea`); text goes out as text of unspecified type, so the server infers it from the
/// context (a `text`, `varchar`, `jsonb`, `timestamptz` or enum column all accept it). Results
/// come back as text and are decoded by the column's type (see `PostgresColumn`).
///
/// Values are data, and data may be secret: no `PostgresValue` is ever written into an error or a log.
public enum PostgresValue: Sendable, Hashable {
    /// SQL NULL.
    case null
    /// `int2`, `int4`, `int8` or `oid`; sent as `int8`.
    case int(Int64)
    /// `float4` or `float8`; sent as `float8`.
    case double(Double)
    /// Text of any other type (`numeric` included, to keep its precision).
    case text(String)
    /// `bytea`.
    case bytes([UInt8])
    /// `bool`.
    case bool(Bool)

    /// True for `.null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The type name for messages that must name a type but not a value.
    public var typeName: String {
        switch self {
        case .null: "NULL"
        case .int: "integer"
        case .double: "double"
        case .text: "text"
        case .bytes: "bytea"
        case .bool: "boolean"
        }
    }

    /// The parameter type sent in Parse: 0 (let the server infer) for NULL and text.
    var parameterType: UInt32 {
        switch self {
        case .null, .text: 0
        case .int: PostgresTypeOID.int8
        case .double: PostgresTypeOID.float8
        case .bytes: PostgresTypeOID.bytea
        case .bool: PostgresTypeOID.bool
        }
    }

    /// The Bind format code: 0 text, 1 binary.
    var wireFormat: Int16 {
        switch self {
        case .null, .text: 0
        case .int, .double, .bytes, .bool: 1
        }
    }

    /// The Int32 length and the bytes of the value in `wireFormat` (length -1 for NULL).
    func encode(into message: inout FrontendMessages) {
        switch self {
        case .null:
            message.int32(-1)
        case .int(let value):
            message.int32(8)
            message.int64(value)
        case .double(let value):
            message.int32(8)
            message.int64(Int64(bitPattern: value.bitPattern))
        case .bool(let value):
            message.int32(1)
            message.byte(value ? 1 : 0)
        case .bytes(let value):
            message.int32(Int32(truncatingIfNeeded: value.count))
            message.bytes(value)
        case .text(let value):
            message.int32(Int32(truncatingIfNeeded: value.utf8.count))
            message.bytes(value.utf8)
        }
    }

    /// How many bytes the value occupies on the wire (for the 1 GiB field limit check).
    var wireByteCount: Int {
        switch self {
        case .null: 0
        case .int, .double: 8
        case .bool: 1
        case .bytes(let value): value.count
        case .text(let value): value.utf8.count
        }
    }
}

extension PostgresValue: ExpressibleByIntegerLiteral, ExpressibleByStringLiteral, ExpressibleByFloatLiteral,
    ExpressibleByNilLiteral, ExpressibleByBooleanLiteral
{
    /// `42` is `.int(42)`.
    public init(integerLiteral value: Int64) { self = .int(value) }
    /// `"abc"` is `.text("abc")`.
    public init(stringLiteral value: String) { self = .text(value) }
    /// `1.5` is `.double(1.5)`.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// `nil` is `.null`.
    public init(nilLiteral: ()) { self = .null }
    /// `true` is `.bool(true)`.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}
