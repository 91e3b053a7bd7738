import ByteScan

/// A value in a structured log line, rendered as JSON.
public enum LogValue: Sendable, Equatable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral
{
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }

    /// Appends this value as a JSON literal (strings escaped per RFC 8259) in UTF-8.
    public func appendJSON(to out: inout [UInt8]) {
        switch self {
        case .int(let value): out.append(contentsOf: String(value).utf8)
        case .bool(let value): out.append(contentsOf: (value ? "true" : "false").utf8)
        case .double(let value): out.append(contentsOf: (value.isFinite ? String(value) : "null").utf8)
        case .string(let value):
            out.append(UInt8(ascii: "\""))
            var value = value
            // Most values need no escaping: checked eight bytes at a time and copied whole (DEL,
            // which the check also stops at, passes as it is below).
            let copied = value.withUTF8 { bytes -> Bool in
                if ByteScan.needsJSONEscape(bytes) { return false }
                out.append(contentsOf: bytes)
                return true
            }
            if !copied {
                // Bytes of 0x80 and up are parts of multi-byte characters and pass as they are.
                let hex = Array("0123456789abcdef".utf8)
                for byte in value.utf8 {
                    switch byte {
                    case UInt8(ascii: "\""): out.append(contentsOf: [0x5C, 0x22])
                    case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
                    case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
                    case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
                    case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
                    case 0x00..<0x20: out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
                    default: out.append(byte)
                    }
                }
            }
            out.append(UInt8(ascii: "\""))
        }
    }
}
