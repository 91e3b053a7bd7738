/// Decodes `Decodable` types from a `JSONValue` already read (a request body the strict reader
/// parsed), so the bytes are not read a second time. Its errors are the `DecodingError`s
/// Foundation's JSONDecoder throws for the same value: `keyNotFound`, `typeMismatch`,
/// `valueNotFound` (null for a required value), `dataCorrupted` (a number that does not fit),
/// with the same coding paths. Unknown members are ignored, as there. Unlike JSONDecoder it
/// has no strategies for `Date`, `Data`, `URL` or `Decimal`: those decode by their own
/// `Decodable` conformance (request bodies hold strings, numbers, booleans, arrays and objects).
public struct JSONValueDecoder: Sendable {
    /// Whether object keys are read as JSONDecoder's `.convertFromSnakeCase` reads them
    /// (`app_user_id` is the property `appUserId`; keys without an underscore are kept as they are).
    public var convertsFromSnakeCase: Bool

    /// A decoder; keys are matched as written unless `convertsFromSnakeCase`.
    public init(convertsFromSnakeCase: Bool = false) {
        self.convertsFromSnakeCase = convertsFromSnakeCase
    }

    /// `value` as a `T`.
    /// - Throws: `DecodingError`, as JSONDecoder words it.
    public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try T(from: ValueDecoder(value: value, codingPath: [], snakeCase: convertsFromSnakeCase))
    }

    /// `key` as JSONDecoder's `.convertFromSnakeCase` reads it: leading and trailing underscores
    /// kept, the words between joined in camelCase (the first lower-cased, the others capitalized),
    /// a key with one word unchanged.
    static func camelCase(_ key: String) -> String {
        let underscore = UInt8(ascii: "_")
        guard key.utf8.contains(underscore) else { return key }
        guard key.utf8.allSatisfy({ $0 < 0x80 }) else { return camelCaseOfUnicode(key) }
        // ASCII (every key Tollgate reads): one pass over the bytes, the same result.
        let bytes = Array(key.utf8)
        guard let first = bytes.firstIndex(where: { $0 != underscore }) else { return key }
        var last = bytes.count - 1
        while last > first, bytes[last] == underscore { last -= 1 }
        var words = 0, inWord = false
        for byte in bytes[first...last] {
            if byte == underscore { inWord = false } else if !inWord { inWord = true; words += 1 }
        }
        guard words > 1 else { return key }
        var out = [UInt8](bytes[..<first])
        out.reserveCapacity(bytes.count)
        var wordStart = true, firstWord = true
        for byte in bytes[first...last] {
            if byte == underscore {
                if !wordStart { firstWord = false }
                wordStart = true
                continue
            }
            let isLower = byte >= 0x61 && byte <= 0x7A, isUpper = byte >= 0x41 && byte <= 0x5A
            if wordStart && !firstWord {
                out.append(isLower ? byte - 0x20 : byte)
            } else {
                out.append(isUpper ? byte + 0x20 : byte)
            }
            wordStart = false
        }
        out.append(contentsOf: bytes[(last + 1)...])
        return String(decoding: out, as: UTF8.self)
    }

    /// `camelCase` for a key with non-ASCII characters, by Swift's own case mapping.
    private static func camelCaseOfUnicode(_ key: String) -> String {
        guard let first = key.firstIndex(where: { $0 != "_" }) else { return key }
        var last = key.index(before: key.endIndex)
        while last > first, key[last] == "_" { last = key.index(before: last) }
        let words = key[first...last].split(separator: "_")
        guard words.count > 1 else { return key }
        let joined = words[0].lowercased() + words.dropFirst().map(capitalized).joined()
        return String(key[..<first]) + joined + String(key[key.index(after: last)...])
    }

    /// The word with its first character upper-cased and the rest lower-cased.
    private static func capitalized(_ word: Substring) -> String {
        guard let head = word.first else { return "" }
        return head.uppercased() + word.dropFirst().lowercased()
    }
}

/// A key of an array position or of a dictionary member, in coding paths.
struct JSONCodingKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }

    init(intValue: Int) {
        stringValue = "Index \(intValue)"
        self.intValue = intValue
    }
}

/// One value being decoded, at `codingPath`.
struct ValueDecoder: Decoder, SingleValueDecodingContainer {
    let value: JSONValue
    let codingPath: [any CodingKey]
    let snakeCase: Bool
    /// Whether this object's own keys are read as written (a `[String: T]`: JSONDecoder converts
    /// no dictionary key), the objects inside it still converted.
    var keysAsWritten = false
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else {
            throw mismatch([String: Any].self)
        }
        return KeyedDecodingContainer(
            ObjectContainer<Key>(members: members, codingPath: codingPath, snakeCase: snakeCase, convertsKeys: snakeCase && !keysAsWritten))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let items) = value else { throw mismatch([Any].self) }
        return ArrayContainer(items: items, codingPath: codingPath, snakeCase: snakeCase)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decodeNil() -> Bool { value == .null }

    func decode(_ type: Bool.Type) throws -> Bool {
        guard case .bool(let flag) = value else { throw mismatch(type) }
        return flag
    }

    func decode(_ type: String.Type) throws -> String {
        guard case .string(let text) = value else { throw mismatch(type) }
        return text
    }

    func decode(_ type: Double.Type) throws -> Double {
        switch value {
        case .integer(let number): return Double(number)
        case .number(let number): return number
        default: throw mismatch(type)
        }
    }

    func decode(_ type: Float.Type) throws -> Float { Float(try decode(Double.self)) }
    func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        guard T.self is any StringKeyedDictionary.Type else { return try T(from: self) }
        var decoder = self
        decoder.keysAsWritten = true
        return try T(from: decoder)
    }

    /// A number that is exactly a `T` (`2.0` is 2, as JSONDecoder reads it); null, another kind
    /// or a number that does not fit are the errors JSONDecoder throws.
    private func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        let converted: T?
        switch value {
        case .integer(let number): converted = T(exactly: number)
        case .number(let number): converted = T(exactly: number)
        default: throw mismatch(type)
        }
        guard let converted else {
            // What JSONDecoder throws for a fraction or a number too large (no coding path).
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "The given data was not valid JSON."))
        }
        return converted
    }

    /// `typeMismatch`, or `valueNotFound` when the value is null (what JSONDecoder throws for each).
    func mismatch(_ expected: Any.Type) -> DecodingError {
        if value == .null {
            return .valueNotFound(expected, .init(codingPath: codingPath, debugDescription: "Cannot get \(expected) -- found null value instead"))
        }
        return .typeMismatch(
            expected, .init(codingPath: codingPath, debugDescription: "Expected to decode \(expected) but found \(Self.kind(of: value)) instead."))
    }

    private static func kind(of value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "bool"
        case .integer, .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "dictionary"
        }
    }
}

/// `[String: T]`, whose keys JSONDecoder reads as written.
protocol StringKeyedDictionary {}
extension Dictionary: StringKeyedDictionary where Key == String {}

/// An object's members by key (converted from snake_case when asked; the first of two keys
/// that convert alike wins).
struct ObjectContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let codingPath: [any CodingKey]
    let snakeCase: Bool
    /// Members in the text's order, keys converted, the first of two alike kept. A list, not a
    /// dictionary: request bodies hold a handful of members, and a scan allocates nothing.
    private let members: [(key: String, value: JSONValue)]

    init(members: [(key: String, value: JSONValue)], codingPath: [any CodingKey], snakeCase: Bool, convertsKeys: Bool) {
        var kept: [(key: String, value: JSONValue)] = []
        kept.reserveCapacity(members.count)
        for member in members {
            let key = convertsKeys ? JSONValueDecoder.camelCase(member.key) : member.key
            if !kept.contains(where: { $0.key == key }) { kept.append((key, member.value)) }
        }
        self.members = kept
        self.codingPath = codingPath
        self.snakeCase = snakeCase
    }

    var allKeys: [Key] { members.compactMap { Key(stringValue: $0.key) } }

    func contains(_ key: Key) -> Bool { member(key.stringValue) != nil }

    private func member(_ key: String) -> JSONValue? { members.first { $0.key == key }?.value }

    private func decoder(for key: Key) throws -> ValueDecoder {
        guard let value = member(key.stringValue) else {
            throw DecodingError.keyNotFound(
                key, .init(codingPath: codingPath, debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\")."))
        }
        return ValueDecoder(value: value, codingPath: codingPath + [key], snakeCase: snakeCase)
    }

    func decodeNil(forKey key: Key) throws -> Bool { try decoder(for: key).decodeNil() }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder(for: key).decode(type)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let value = member(key.stringValue), value != .null else { return nil }
        return try ValueDecoder(value: value, codingPath: codingPath + [key], snakeCase: snakeCase).decode(type)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try decoder(for: key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder(for: key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        ValueDecoder(value: member("super") ?? .null, codingPath: codingPath + [JSONCodingKey(stringValue: "super")], snakeCase: snakeCase)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        ValueDecoder(value: member(key.stringValue) ?? .null, codingPath: codingPath + [key], snakeCase: snakeCase)
    }
}

/// An array's items, read in order.
struct ArrayContainer: UnkeyedDecodingContainer {
    let items: [JSONValue]
    let codingPath: [any CodingKey]
    let snakeCase: Bool
    private(set) var currentIndex = 0

    init(items: [JSONValue], codingPath: [any CodingKey], snakeCase: Bool) {
        self.items = items
        self.codingPath = codingPath
        self.snakeCase = snakeCase
    }

    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    private mutating func next(_ type: Any.Type) throws -> ValueDecoder {
        let key = JSONCodingKey(intValue: currentIndex)
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, .init(codingPath: codingPath + [key], debugDescription: "Unkeyed container is at end."))
        }
        defer { currentIndex += 1 }
        return ValueDecoder(value: items[currentIndex], codingPath: codingPath + [key], snakeCase: snakeCase)
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, items[currentIndex] == .null else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try next(type).decode(type)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try next([String: Any].self).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try next([Any].self).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        try next(JSONValue.self)
    }
}
