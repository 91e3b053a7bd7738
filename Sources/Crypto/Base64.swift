import Foundation

/// Strict RFC 4648 base64 (standard alphabet, `=` padding required).
///
/// Decoding rejects anything a canonical encoder would not produce: characters outside the
/// alphabet, whitespace, missing or extra padding, and non-zero bits after the last byte.
public enum Base64 {
    /// Encodes with the standard alphabet and padding.
    public static func encode(_ bytes: some ContiguousBytes) -> String {
        bytes.withUnsafeBytes { Base64Codec.encode($0, alphabet: Base64Codec.standard, pad: true) }
    }

    /// Decodes strictly.
    /// - Throws: `CryptoError.malformedEncoding` describing the first problem found.
    public static func decode(_ text: String) throws -> [UInt8] {
        try Base64Codec.decode(text, table: Base64Codec.standardTable, padded: true, name: "base64")
    }
}

/// Strict base64url without padding (RFC 7515 §2): `-` and `_`, no `=`, canonical trailing bits.
public enum Base64URL {
    /// Encodes with the URL-safe alphabet and no padding.
    public static func encode(_ bytes: some ContiguousBytes) -> String {
        bytes.withUnsafeBytes { Base64Codec.encode($0, alphabet: Base64Codec.urlSafe, pad: false) }
    }

    /// Decodes strictly.
    /// - Throws: `CryptoError.malformedEncoding` describing the first problem found.
    public static func decode(_ text: String) throws -> [UInt8] {
        try Base64Codec.decode(text, table: Base64Codec.urlSafeTable, padded: false, name: "base64url")
    }
}

/// Table-driven codec shared by `Base64` and `Base64URL`.
enum Base64Codec {
    static let standard = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    static let urlSafe = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    static let standardTable = makeTable(standard)
    static let urlSafeTable = makeTable(urlSafe)

    private static func makeTable(_ alphabet: [UInt8]) -> [UInt8] {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, char) in alphabet.enumerated() { table[Int(char)] = UInt8(index) }
        return table
    }

    static func encode(_ input: UnsafeRawBufferPointer, alphabet: [UInt8], pad: Bool) -> String {
        let rest = input.count % 3
        let length = input.count / 3 * 4 + (rest == 0 ? 0 : pad ? 4 : rest + 1)
        // Written straight into the new string's storage: one allocation, no per-character append.
        return String(unsafeUninitializedCapacity: length) { out in
            alphabet.withUnsafeBufferPointer { alphabet in
                var index = 0
                var written = 0
                while index + 3 <= input.count {
                    let value = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
                    out[written] = alphabet[Int(value >> 18 & 63)]
                    out[written + 1] = alphabet[Int(value >> 12 & 63)]
                    out[written + 2] = alphabet[Int(value >> 6 & 63)]
                    out[written + 3] = alphabet[Int(value & 63)]
                    written += 4
                    index += 3
                }
                if rest > 0 {
                    let value = UInt32(input[index]) << 16 | (rest == 2 ? UInt32(input[index + 1]) << 8 : 0)
                    out[written] = alphabet[Int(value >> 18 & 63)]
                    out[written + 1] = alphabet[Int(value >> 12 & 63)]
                    written += 2
                    if rest == 2 {
                        out[written] = alphabet[Int(value >> 6 & 63)]
                        written += 1
                    }
                    if pad {
                        for _ in rest..<3 {
                            out[written] = UInt8(ascii: "=")
                            written += 1
                        }
                    }
                }
                return written
            }
        }
    }

    static func decode(_ text: String, table: [UInt8], padded: Bool, name: String) throws -> [UInt8] {
        var text = text
        return try text.withUTF8 { try decode($0, table: table, padded: padded, name: name) }
    }

    static func decode(_ input: UnsafeBufferPointer<UInt8>, table: [UInt8], padded: Bool, name: String) throws -> [UInt8] {
        var length = input.count
        if padded {
            guard length % 4 == 0 else {
                throw CryptoError(.malformedEncoding, "\(name) length \(length) is not a multiple of 4")
            }
            let pad = UInt8(ascii: "=")
            if length >= 2, input[length - 1] == pad, input[length - 2] == pad {
                length -= 2
            } else if length >= 1, input[length - 1] == pad {
                length -= 1
            }
        } else if length % 4 == 1 {
            throw CryptoError(.malformedEncoding, "\(name) length \(length) cannot come from whole bytes")
        }
        var out = [UInt8]()
        out.reserveCapacity(length / 4 * 3 + 2)
        var accumulator: UInt32 = 0
        var bits = 0
        for position in 0..<length {
            let value = table[Int(input[position])]
            guard value != 0xFF else {
                throw CryptoError(.malformedEncoding, "\(name) has an invalid character at offset \(position)")
            }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        if length % 4 == 1 {
            throw CryptoError(.malformedEncoding, "\(name) has a dangling character")
        }
        guard accumulator == 0 else {
            throw CryptoError(.malformedEncoding, "\(name) has non-zero bits after the last byte")
        }
        return out
    }
}
