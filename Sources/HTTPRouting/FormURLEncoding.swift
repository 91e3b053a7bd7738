/// `application/x-www-form-urlencoded` decoding (query strings and form bodies) and
/// percent-decoding of path segments.
public enum FormURLEncoding {
    /// Splits `a=1&b=x+y` into decoded pairs; `+` is a space. Invalid escapes are kept literally.
    public static func decode(_ text: String) -> [(name: String, value: String)] {
        var items: [(name: String, value: String)] = []
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            if let equals = pair.firstIndex(of: "=") {
                items.append(
                    (
                        name: percentDecode(pair[..<equals], plusIsSpace: true) ?? String(pair[..<equals]),
                        value: percentDecode(pair[pair.index(after: equals)...], plusIsSpace: true) ?? String(pair[pair.index(after: equals)...])
                    ))
            } else {
                items.append((name: percentDecode(pair, plusIsSpace: true) ?? String(pair), value: ""))
            }
        }
        return items
    }

    /// The values of parameter `name` in `text`, percent-decoded with `+` kept as `+` (as
    /// RFC 3986 reads a query; `URLComponents` leaves `+` unescaped), in order.
    public static func rawValues(named name: String, in text: String) -> [String] {
        text.split(separator: "&", omittingEmptySubsequences: true).compactMap { pair in
            guard let equals = pair.firstIndex(of: "="), percentDecode(pair[..<equals], plusIsSpace: true) == name else { return nil }
            return percentDecode(pair[pair.index(after: equals)...]) ?? String(pair[pair.index(after: equals)...])
        }
    }

    /// Percent-decodes `text`; nil when an escape is malformed or the bytes are not UTF-8.
    public static func percentDecode(_ text: some StringProtocol, plusIsSpace: Bool = false) -> String? {
        let utf8 = Array(text.utf8)
        guard utf8.contains(where: { $0 == UInt8(ascii: "%") || (plusIsSpace && $0 == UInt8(ascii: "+")) }) else {
            return String(text)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var index = 0
        while index < utf8.count {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < utf8.count, let high = hexValue(utf8[index + 1]), let low = hexValue(utf8[index + 2]) else {
                    return nil
                }
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes.append(plusIsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                index += 1
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// Percent-encodes everything but unreserved characters (RFC 3986 §2.3).
    public static func encode(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".utf8)
                out.unicodeScalars.append("%")
                out.unicodeScalars.append(Unicode.Scalar(hex[Int(byte >> 4)]))
                out.unicodeScalars.append(Unicode.Scalar(hex[Int(byte & 0x0F)]))
            }
        }
        return out
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
