/// Reed–Solomon error correction over GF(256) with the QR field polynomial
/// x^8 + x^4 + x^3 + x^2 + 1 (0x11D) and generator g(x) = (x - α^0)(x - α^1)…(x - α^(n-1)).
struct ReedSolomon: Sendable {
    /// Generator coefficients, highest degree first, without the leading 1.
    let generator: [UInt8]

    /// A generator for `degree` error correction codewords.
    init(degree: Int) {
        // Start from g(x) = 1 and multiply by (x + α^i) for each root; subtraction is XOR.
        var coefficients: [UInt8] = [1]
        for i in 0..<degree {
            let root = GaloisField.exp[i]
            var next = [UInt8](repeating: 0, count: coefficients.count + 1)
            for (j, c) in coefficients.enumerated() {
                next[j] ^= c
                next[j + 1] ^= GaloisField.multiply(c, root)
            }
            coefficients = next
        }
        generator = Array(coefficients.dropFirst())
    }

    /// The remainder of `data(x) · x^n` divided by the generator: the error correction
    /// codewords appended to `data`.
    func remainder(of data: [UInt8]) -> [UInt8] {
        var remainder = [UInt8](repeating: 0, count: generator.count)
        guard !remainder.isEmpty else { return [] }
        for byte in data {
            let factor = byte ^ remainder[0]
            remainder.removeFirst()
            remainder.append(0)
            if factor != 0 {
                for j in generator.indices {
                    remainder[j] ^= GaloisField.multiply(generator[j], factor)
                }
            }
        }
        return remainder
    }
}

/// Arithmetic in GF(256) modulo 0x11D through exponent and logarithm tables.
enum GaloisField {
    /// α^i for i in 0..<255, with a second copy so log sums need no reduction.
    static let exp: [UInt8] = {
        var table = [UInt8](repeating: 0, count: 510)
        var value = 1
        for i in 0..<255 {
            table[i] = UInt8(value)
            table[i + 255] = UInt8(value)
            value <<= 1
            if value & 0x100 != 0 { value ^= 0x11D }
        }
        return table
    }()

    /// log_α(v) for v in 1...255 (entry 0 is unused).
    static let log: [Int] = {
        var table = [Int](repeating: 0, count: 256)
        for i in 0..<255 { table[Int(exp[i])] = i }
        return table
    }()

    /// The product of two field elements.
    static func multiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
        if a == 0 || b == 0 { return 0 }
        return exp[log[Int(a)] + log[Int(b)]]
    }
}
