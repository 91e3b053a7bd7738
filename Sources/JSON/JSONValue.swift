/// A JSON value, the one type for JSON the tree reads and writes. Objects keep their members in
/// order: the writer (`serialized()`) reproduces signed JWT headers and request bodies byte for
/// byte, and the reader (`parse`) hands members back in the order of the text.
public indirect enum JSONValue: Sendable, Equatable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByDictionaryLiteral, ExpressibleByArrayLiteral
{
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number written without a fraction or exponent that fits 64 bits (JWT times, ids, amounts).
    case integer(Int64)
    /// Any other number.
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object; members are written in this order.
    case object([(key: String, value: JSONValue)])

    /// A string literal.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An integer literal.
    public init(integerLiteral value: Int64) { self = .integer(value) }
    /// A boolean literal.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An object literal; source order is kept.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(elements.map { (key: $0.0, value: $0.1) })
    }
    /// An array literal.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }

    /// The member named `key` when this is an object that has one (the first, should a value
    /// built in code repeat a key; parsed objects never do), else nil.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// The text when this is a string, else nil.
    public var stringValue: String? {
        guard case .string(let text) = self else { return nil }
        return text
    }

    /// True when this is an object.
    public var isObject: Bool {
        if case .object = self { return true }
        return false
    }

    /// This value when it is an object, else nil (`value["a"]?.objectValue` is an object or nothing).
    public var objectValue: JSONValue? { isObject ? self : nil }

    /// The elements when this is an array, else nil.
    public var arrayElements: [JSONValue]? {
        guard case .array(let items) = self else { return nil }
        return items
    }

    /// The flag when this is `true` or `false`; nil for anything else, the numbers 0 and 1 included.
    public var boolValue: Bool? {
        guard case .bool(let flag) = self else { return nil }
        return flag
    }

    /// The number when it is a whole number that fits 64 bits (`2.0` is 2, as `JSONValueDecoder`
    /// reads it); nil for a fraction, a boolean, a string or anything else.
    public var int64Value: Int64? {
        switch self {
        case .integer(let number): return number
        case .number(let number): return Int64(exactly: number)
        default: return nil
        }
    }

    /// Same kind and content; objects compare member by member, in order.
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.integer(let a), .integer(let b)): return a == b
        case (.number(let a), .number(let b)): return a == b
        case (.string(let a), .string(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.object(let a), .object(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: return false
        }
    }
}
