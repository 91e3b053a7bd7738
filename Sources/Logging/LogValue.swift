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
        case .int(let value): Self.appendDecimal(value, to: &out)
        case .bool(let value): out.append(contentsOf: (value ? "true" : "false").utf8)
        case .double(let value):
            // Durations are logged in whole microseconds (`duration_ms` 1.234): written from
            // the integer, as Swift's shortest form would write them, without making a String.
            if let thousandths = Self.exactThousandths(value) {
                Self.appendThousandths(thousandths, to: &out)
            } else {
                out.append(contentsOf: (value.isFinite ? String(value) : "null").utf8)
            }
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

    /// `value` × 1000 when that is a whole number and `value` is one of the doubles nearest a
    /// number of thousandths below 10^12 in magnitude (so its shortest decimal form is that
    /// number's); nil otherwise, and for -0.0.
    static func exactThousandths(_ value: Double) -> Int? {
        guard value.isFinite, value.magnitude < 1e12, value != 0 || value.sign == .plus else { return nil }
        let scaled = (value * 1000).rounded()
        let thousandths = Int(scaled)
        guard Double(thousandths) / 1000 == value else { return nil }
        return thousandths
    }

    /// `thousandths` / 1000 as Swift writes a Double: at least one digit after the point, no
    /// trailing zeros beyond it (`2.0`, `0.25`, `-1.125`).
    static func appendThousandths(_ thousandths: Int, to out: inout [UInt8]) {
        if thousandths < 0 { out.append(UInt8(ascii: "-")) }
        let magnitude = thousandths.magnitude
        appendDecimal(Int(magnitude / 1000), to: &out)
        out.append(UInt8(ascii: "."))
        var fraction = Int(magnitude % 1000)
        var digits = 3
        while digits > 1, fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        var divisor = digits == 3 ? 100 : digits == 2 ? 10 : 1
        while divisor > 0 {
            out.append(UInt8(ascii: "0") + UInt8(fraction / divisor % 10))
            divisor /= 10
        }
    }

    /// An integer in decimal, written digit by digit into `out`.
    static func appendDecimal(_ value: Int, to out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var divisor: UInt = 1
        while magnitude / divisor >= 10 { divisor *= 10 }
        while divisor > 0 {
            out.append(UInt8(ascii: "0") + UInt8(magnitude / divisor))
            magnitude %= divisor
            divisor /= 10
        }
    }
}
