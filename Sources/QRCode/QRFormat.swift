/// Format and version information: short BCH codes protecting the symbol's metadata.
enum QRFormat {
    /// Error correction level M's two format bits.
    static let levelMBits = 0b00

    /// The 15 format bits for level M and `mask`: 5 data bits (level, mask), 10 bits of
    /// BCH(15,5) with generator x^10+x^8+x^5+x^4+x^2+x+1 (0x537), XORed with 0x5412 so the
    /// result is never all zero.
    static func formatBits(mask: Int) -> Int {
        let data = levelMBits << 3 | mask
        return (data << 10 | bchRemainder(data << 10, generator: 0x537, degree: 10)) ^ 0x5412
    }

    /// The 18 version bits: 6 bits of version, 12 bits of BCH(18,6) with generator
    /// x^12+x^11+x^10+x^9+x^8+x^5+x^2+1 (0x1F25).
    static func versionBits(version: Int) -> Int {
        version << 12 | bchRemainder(version << 12, generator: 0x1F25, degree: 12)
    }

    /// `value` modulo `generator` as polynomials over GF(2).
    static func bchRemainder(_ value: Int, generator: Int, degree: Int) -> Int {
        var remainder = value
        var shift = remainder.bitWidth - remainder.leadingZeroBitCount - 1
        while shift >= degree {
            if (remainder >> shift) & 1 != 0 {
                remainder ^= generator << (shift - degree)
            }
            shift -= 1
        }
        return remainder
    }
}
