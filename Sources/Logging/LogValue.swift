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

    /// Appends this value as a JSON literal (strings escaped per RFC 8259).
    public func appendJSON(to out: inout String) {
        switch self {
        case .int(let value): out += String(value)
        case .bool(let value): out += value ? "true" : "false"
        case .double(let value): out += value.isFinite ? String(value) : "null"
        case .string(let value):
            out += "\""
            // Most values need no escaping: append them whole.
            let plain = value.utf8.withContiguousStorageIfAvailable { bytes in
                !bytes.contains { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }
            }
            if plain == true {
                out += value
                out += "\""
                return
            }
            for scalar in value.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\r": out += "\\r"
                case "\t": out += "\\t"
                case _ where scalar.value < 0x20:
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                default: out.unicodeScalars.append(scalar)
                }
            }
            out += "\""
        }
    }
}
