import Foundation

/// Hexadecimal encoding: lowercase out, either case in, nothing else accepted.
public enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    /// Lowercase hex of `bytes`.
    public static func encode(_ bytes: some ContiguousBytes) -> String {
        bytes.withUnsafeBytes { input in
            // Written straight into the string's own storage: one allocation, no per-byte append.
            String(unsafeUninitializedCapacity: input.count * 2) { output in
                digits.withUnsafeBufferPointer { digits in
                    for (index, byte) in input.enumerated() {
                        output[2 * index] = digits[Int(byte >> 4)]
                        output[2 * index + 1] = digits[Int(byte & 0x0F)]
                    }
                }
                return input.count * 2
            }
        }
    }

    /// Decodes an even-length string of hex digits (either case).
    /// - Throws: `CryptoError.malformedEncoding` for odd length or a non-hex character.
    public static func decode(_ text: String) throws -> [UInt8] {
        var text = text
        return try text.withUTF8 { input in
            guard input.count % 2 == 0 else {
                throw CryptoError(.malformedEncoding, "hex length \(input.count) is odd")
            }
            var out = [UInt8]()
            out.reserveCapacity(input.count / 2)
            var index = 0
            while index < input.count {
                guard let high = value(input[index]), let low = value(input[index + 1]) else {
                    throw CryptoError(.malformedEncoding, "hex has an invalid character near offset \(index)")
                }
                out.append(high << 4 | low)
                index += 2
            }
            return out
        }
    }

    private static func value(_ char: UInt8) -> UInt8? {
        switch char {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return char - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return char - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return char - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
