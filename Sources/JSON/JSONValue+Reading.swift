extension JSONValue {
    /// Reads one strict JSON text (RFC 8259 exactly, as `StrictJSON.validate` checks it: no
    /// duplicate keys, trailing commas, lone surrogates or invalid UTF-8) into a value; the
    /// error names the byte offset, line and column. Objects keep the text's member order.
    /// Numbers without fraction or exponent that fit 64 bits are `.integer`, others `.number`.
    public static func parse(_ bytes: [UInt8], maxDepth: Int = StrictJSON.defaultMaxDepth) throws(StrictJSON.Violation) -> JSONValue {
        var builder = ValueBuilder()
        try StrictJSON.run(bytes, maxDepth: maxDepth, events: &builder)
        return builder.root ?? .null
    }
}

/// Builds `JSONValue`s from the validator's events: values on one stack, each open container
/// remembering where its values (and, for an object, its keys) start.
struct ValueBuilder: JSONEvents {
    static var wantsValues: Bool { true }

    private(set) var root: JSONValue?
    private var values: [JSONValue] = []
    private var keys: [String] = []
    private var open: [(isObject: Bool, firstValue: Int, firstKey: Int)] = []

    mutating func beginContainer(isObject: Bool) {
        open.append((isObject, values.count, keys.count))
    }

    mutating func endContainer() {
        let container = open.removeLast()
        let items = values[container.firstValue...]
        let value: JSONValue
        if container.isObject {
            value = .object(zip(keys[container.firstKey...], items).map { (key: $0, value: $1) })
            keys.removeSubrange(container.firstKey...)
        } else {
            value = .array(Array(items))
        }
        values.removeSubrange(container.firstValue...)
        add(value)
    }

    mutating func key(_ key: String) { keys.append(key) }

    mutating func string(_ text: String) { add(.string(text)) }

    mutating func number(_ text: UnsafeBufferPointer<UInt8>) {
        let string = String(decoding: text, as: UTF8.self)
        let plain = !text.contains { $0 == UInt8(ascii: ".") || $0 | 0x20 == UInt8(ascii: "e") }
        if plain, let integer = Int64(string) {
            add(.integer(integer))
        } else {
            // The validator checked the grammar, which Double's parser accepts (out of range: ±infinity).
            add(.number(Double(string) ?? .nan))
        }
    }

    mutating func literal(_ value: JSONValue) { add(value) }

    private mutating func add(_ value: JSONValue) {
        if open.isEmpty { root = value } else { values.append(value) }
    }
}
