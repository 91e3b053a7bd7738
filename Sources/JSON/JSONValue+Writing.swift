import ByteScan

extension JSONValue {
    /// The compact UTF-8 serialization: no whitespace, members in order, `/` and non-ASCII not
    /// escaped, control characters as `\n`, `\r`, `\t` or `\u00xx`. Deterministic, so signatures
    /// over it can be reproduced. A non-finite `.number` (JSON has none) is written `null`.
    public func serialized() -> [UInt8] {
        var out = [UInt8]()
        write(into: &out)
        return out
    }

    /// The serialization indented for reading: one member or element a line, two spaces a
    /// level, `"key": value`, empty containers as `{}` and `[]`, members in order (sort them
    /// first with `keysSorted`), strings and numbers written as `serialized()` writes them.
    public func prettySerialized() -> [UInt8] {
        var out = [UInt8]()
        writePretty(into: &out, indent: 0)
        return out
    }

    /// The same value with every object's members sorted by key (code-point order), at every
    /// depth: a canonical form for text stored or compared.
    public var keysSorted: JSONValue {
        switch self {
        case .object(let members):
            return .object(members.sorted { $0.key < $1.key }.map { (key: $0.key, value: $0.value.keysSorted) })
        case .array(let items): return .array(items.map(\.keysSorted))
        default: return self
        }
    }

    /// `value` as a JSON string literal, escaped as `serialized()` escapes strings.
    public static func quoted(_ value: String) -> String {
        var out = [UInt8]()
        out.reserveCapacity(value.utf8.count + 2)
        writeString(value, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// The text of a number as `serialized()` writes it (`String(value)`: shortest round trip).
    private static func numberText(_ value: Double) -> String {
        value.isFinite ? String(value) : "null"
    }

    private func write(into out: inout [UInt8]) {
        switch self {
        case .string(let value): Self.writeString(value, into: &out)
        case .integer(let value): out.append(contentsOf: String(value).utf8)
        case .number(let value): out.append(contentsOf: Self.numberText(value).utf8)
        case .bool(let value): out.append(contentsOf: (value ? "true" : "false").utf8)
        case .null: out.append(contentsOf: "null".utf8)
        case .array(let values):
            out.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                value.write(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                Self.writeString(member.key, into: &out)
                out.append(UInt8(ascii: ":"))
                member.value.write(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    private func writePretty(into out: inout [UInt8], indent: Int) {
        func newline(_ level: Int) {
            out.append(0x0A)
            out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * level))
        }
        switch self {
        case .array(let values) where !values.isEmpty:
            out.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                newline(indent + 1)
                value.writePretty(into: &out, indent: indent + 1)
            }
            newline(indent)
            out.append(UInt8(ascii: "]"))
        case .object(let members) where !members.isEmpty:
            out.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                newline(indent + 1)
                Self.writeString(member.key, into: &out)
                out.append(contentsOf: [UInt8(ascii: ":"), UInt8(ascii: " ")])
                member.value.writePretty(into: &out, indent: indent + 1)
            }
            newline(indent)
            out.append(UInt8(ascii: "}"))
        default:
            write(into: &out)
        }
    }

    private static func writeString(_ value: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Most strings need no escaping: checked eight bytes at a time and copied whole (DEL,
        // which the check also stops at, passes as it is below).
        var value = value
        let copied = value.withUTF8 { bytes -> Bool in
            if ByteScan.needsJSONEscape(bytes) { return false }
            out.append(contentsOf: bytes)
            return true
        }
        if copied {
            out.append(UInt8(ascii: "\""))
            return
        }
        let hex = Array("0123456789abcdef".utf8)
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                out.append(contentsOf: Array("\\u00".utf8))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
