import ByteScan

/// One log line written straight into an array's storage, sized once from an upper bound of what
/// its parts can take (`bound(of:)`), so each part costs a copy instead of an array append. Every
/// write checks the room left: a bound that was wrong stops the process instead of writing past
/// the storage.
struct LogLine {
    private let base: UnsafeMutablePointer<UInt8>
    private let capacity: Int
    /// Bytes written so far.
    private(set) var count = 0

    /// Room for the line's fixed parts: `{"ts":"`, the time, `","level":"`, the level,
    /// `","event":`, and `}` with the newline (the time takes 24 bytes but for years past 9999).
    static let fixedBytes = 96

    init(_ storage: UnsafeMutableBufferPointer<UInt8>) {
        base = storage.baseAddress!
        capacity = storage.count
    }

    /// The most bytes `value` can take as JSON: a string's every byte escaped as `\u00XX`, an
    /// integer's twenty characters, a double's shortest form.
    static func bound(of value: LogValue) -> Int {
        switch value {
        case .string(let text): bound(of: text)
        case .int: 20
        case .double: 32
        case .bool: 5
        }
    }

    /// The most bytes `text` can take as a JSON string, quotes included.
    static func bound(of text: String) -> Int { 2 + 6 * text.utf8.count }

    mutating func byte(_ value: UInt8) {
        precondition(count < capacity, "log line bound exceeded")
        (base + count).initialize(to: value)
        count += 1
    }

    mutating func bytes(_ source: UnsafeBufferPointer<UInt8>) {
        guard let from = source.baseAddress, !source.isEmpty else { return }
        precondition(source.count <= capacity - count, "log line bound exceeded")
        (base + count).initialize(from: from, count: source.count)
        count += source.count
    }

    mutating func literal(_ text: StaticString) {
        text.withUTF8Buffer { bytes($0) }
    }

    /// `value` as a JSON literal.
    mutating func value(_ value: LogValue) {
        switch value {
        case .string(let text): string(text)
        case .int(let number): decimal(number)
        case .bool(let flag): flag ? literal("true") : literal("false")
        case .double(let number):
            // Durations are logged in whole microseconds (`duration_ms` 1.234): written from
            // the integer, as Swift's shortest form would write them, without making a String.
            if let thousandths = LogValue.exactThousandths(number) {
                self.thousandths(thousandths)
            } else {
                var text = number.isFinite ? String(number) : "null"
                text.withUTF8 { bytes($0) }
            }
        }
    }

    /// `text` as a JSON string (RFC 8259 escapes). Most values need none: they are checked eight
    /// bytes at a time and copied whole (DEL, which the check also stops at, passes as it is).
    mutating func string(_ text: String) {
        byte(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            guard ByteScan.needsJSONEscape(utf8) else { return bytes(utf8) }
            // Bytes of 0x80 and up are parts of multi-byte characters and pass as they are.
            for byte in utf8 {
                switch byte {
                case UInt8(ascii: "\""): escape(UInt8(ascii: "\""))
                case UInt8(ascii: "\\"): escape(UInt8(ascii: "\\"))
                case 0x0A: escape(UInt8(ascii: "n"))
                case 0x0D: escape(UInt8(ascii: "r"))
                case 0x09: escape(UInt8(ascii: "t"))
                case 0x00..<0x20:
                    literal("\\u00")
                    self.byte(Self.hexDigits[Int(byte >> 4)])
                    self.byte(Self.hexDigits[Int(byte & 0xF)])
                default: self.byte(byte)
                }
            }
        }
        byte(UInt8(ascii: "\""))
    }

    private mutating func escape(_ letter: UInt8) {
        byte(UInt8(ascii: "\\"))
        byte(letter)
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// An integer in decimal.
    mutating func decimal(_ value: Int) {
        if value < 0 { byte(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var divisor: UInt = 1
        while magnitude / divisor >= 10 { divisor *= 10 }
        while divisor > 0 {
            byte(UInt8(ascii: "0") + UInt8(magnitude / divisor))
            magnitude %= divisor
            divisor /= 10
        }
    }

    /// `thousandths` / 1000 as Swift writes a Double: at least one digit after the point, no
    /// trailing zeros beyond it (`2.0`, `0.25`, `-1.125`).
    mutating func thousandths(_ thousandths: Int) {
        if thousandths < 0 { byte(UInt8(ascii: "-")) }
        let magnitude = thousandths.magnitude
        decimal(Int(magnitude / 1000))
        byte(UInt8(ascii: "."))
        var fraction = Int(magnitude % 1000)
        var digits = 3
        while digits > 1, fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        var divisor = digits == 3 ? 100 : digits == 2 ? 10 : 1
        while divisor > 0 {
            byte(UInt8(ascii: "0") + UInt8(fraction / divisor % 10))
            divisor /= 10
        }
    }
}
