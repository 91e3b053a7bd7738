import Crypto

/// An 80-bit redemption code: 16 Crockford base32 characters, shown as `XXXX-XXXX-XXXX-XXXX`.
public struct RedemptionCode: Sendable, Hashable, CustomStringConvertible {
    /// Crockford's alphabet (no I, L, O, U).
    static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)
    static let length = 16

    /// The 16 characters without hyphens: the form to hash and store.
    public let canonical: String

    private init(canonical: String) {
        self.canonical = canonical
    }

    /// Grouped for people: `XXXX-XXXX-XXXX-XXXX`.
    public var display: String {
        var canonical = canonical
        return canonical.withUTF8 { code in
            // Written straight into the new string: a dash before every fourth character but the first.
            String(unsafeUninitializedCapacity: code.count + max(0, code.count - 1) / 4) { out in
                var written = 0
                for index in code.indices {
                    if index > 0, index % 4 == 0 {
                        out[written] = UInt8(ascii: "-")
                        written += 1
                    }
                    out[written] = code[index]
                    written += 1
                }
                return written
            }
        }
    }

    /// Same as `display`.
    public var description: String { display }

    /// A new random code (10 bytes from `RAND_bytes`).
    /// - Throws: `CryptoError.randomFailure` if the generator fails.
    public static func generate() throws -> RedemptionCode {
        let bytes = try SecureRandom.bytes(count: 10)
        var accumulator: UInt32 = 0
        var bits = 0
        var out = [UInt8]()
        out.reserveCapacity(length)
        for byte in bytes {
            accumulator = accumulator << 8 | UInt32(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                out.append(alphabet[Int(accumulator >> UInt32(bits) & 31)])
            }
            accumulator &= (1 << UInt32(bits)) - 1
        }
        return RedemptionCode(canonical: String(decoding: out, as: UTF8.self))
    }

    /// Normalizes what a person typed: uppercases, drops spaces and hyphens, reads `O` as `0` and
    /// `I`/`L` as `1`. Returns `nil` unless exactly 16 valid characters remain.
    public init?(normalizing input: String) {
        // Byte by byte into the string's own storage: a byte of a non-ASCII character is 0x80 or
        // above and fails the alphabet like any other character outside it.
        var count = 0
        var isValid = true
        let canonical = String(unsafeUninitializedCapacity: Self.length) { out in
            for byte in input.utf8 {
                var char = byte
                if char == UInt8(ascii: " ") || char == UInt8(ascii: "-") { continue }
                if (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(char) { char -= 32 }
                switch char {
                case UInt8(ascii: "O"): char = UInt8(ascii: "0")
                case UInt8(ascii: "I"), UInt8(ascii: "L"): char = UInt8(ascii: "1")
                default: break
                }
                guard Self.isInAlphabet(char), count < Self.length else {
                    isValid = false
                    return 0
                }
                out[count] = char
                count += 1
            }
            return count
        }
        guard isValid, count == Self.length else { return nil }
        self.init(canonical: canonical)
    }

    /// The alphabet as a set of bits, one per ASCII byte (bytes 0–63 in the first word).
    private static let alphabetBits: (low: UInt64, high: UInt64) = alphabet.reduce((0, 0)) { bits, char in
        char < 64 ? (bits.0 | 1 << UInt64(char), bits.1) : (bits.0, bits.1 | 1 << UInt64(char - 64))
    }

    private static func isInAlphabet(_ char: UInt8) -> Bool {
        switch char {
        case ..<64: alphabetBits.low & (1 << UInt64(char)) != 0
        case ..<128: alphabetBits.high & (1 << UInt64(char - 64)) != 0
        default: false
        }
    }
}
