/// Stripe's `application/x-www-form-urlencoded` request bodies with nested parameters
/// (`line_items[0][price]=price_123&metadata[utm_source]=x`).
///
/// Encoding choices (both accepted by Stripe, whose parser follows Rack's nested-query rules):
/// unreserved characters (`A-Z a-z 0-9 - . _ ~`) stay literal, every other byte of the UTF-8 form
/// is `%XX` with upper-case hex, so a space is `%20` (never `+`, which is ambiguous outside
/// forms); in keys the brackets `[` `]` stay literal, as Stripe's Ruby and Python libraries send
/// them, so keys read the same in logs and in Stripe's dashboard. Brackets inside values are
/// encoded.
struct StripeFormEncoder {
    private(set) var pairs: [(key: String, value: String)] = []

    /// Appends one parameter.
    mutating func add(_ key: String, _ value: String) {
        pairs.append((key, value))
    }

    /// Appends `prefix[key]=value` for each entry, keys sorted so bodies are deterministic.
    mutating func add(_ prefix: String, dictionary: [String: String]) {
        for key in dictionary.keys.sorted() {
            if let value = dictionary[key] { pairs.append(("\(prefix)[\(key)]", value)) }
        }
    }

    /// The encoded body.
    func encoded() -> [UInt8] {
        var out: [UInt8] = []
        for (index, pair) in pairs.enumerated() {
            if index > 0 { out.append(UInt8(ascii: "&")) }
            Self.escape(pair.key, keepBrackets: true, into: &out)
            out.append(UInt8(ascii: "="))
            Self.escape(pair.value, keepBrackets: false, into: &out)
        }
        return out
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    static func escape(_ text: String, keepBrackets: Bool, into out: inout [UInt8]) {
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(byte)
            case UInt8(ascii: "["), UInt8(ascii: "]"):
                if keepBrackets {
                    out.append(byte)
                } else {
                    appendEscaped(byte, into: &out)
                }
            default:
                appendEscaped(byte, into: &out)
            }
        }
    }

    private static func appendEscaped(_ byte: UInt8, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "%"))
        out.append(hexDigits[Int(byte >> 4)])
        out.append(hexDigits[Int(byte & 0x0F)])
    }
}
