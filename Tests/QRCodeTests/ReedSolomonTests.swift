import Testing
@testable import QRCode

@Suite("Reed–Solomon over GF(256)")
struct ReedSolomonTests {
    /// GF(256) multiplication by shift-and-add modulo 0x11D, independent of the encoder's tables.
    static func slowMultiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
        var a = Int(a), b = Int(b), product = 0
        while b > 0 {
            if b & 1 != 0 { product ^= a }
            a <<= 1
            if a & 0x100 != 0 { a ^= 0x11D }
            b >>= 1
        }
        return UInt8(product)
    }

    /// The codeword polynomial (highest degree first) evaluated at α^i, i in 0..<count.
    static func syndromes(_ codeword: [UInt8], count: Int) -> [UInt8] {
        var alphaPower: UInt8 = 1
        var result: [UInt8] = []
        for _ in 0..<count {
            var value: UInt8 = 0
            for c in codeword { value = slowMultiply(value, alphaPower) ^ c }  // Horner
            result.append(value)
            alphaPower = slowMultiply(alphaPower, 2)
        }
        return result
    }

    @Test("ISO/IEC 18004 Annex I example \"01234567\" at 1-M gives the standard's EC codewords")
    func isoExample() {
        let data: [UInt8] = [
            0x10, 0x20, 0x0C, 0x56, 0x61, 0x80, 0xEC, 0x11,
            0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11
        ]
        let expected: [UInt8] = [0xA5, 0x24, 0xD4, 0xC1, 0xED, 0x36, 0xC7, 0x87, 0x2C, 0x55]
        #expect(ReedSolomon(degree: 10).remainder(of: data) == expected)
    }

    @Test("\"HELLO WORLD\" alphanumeric 1-M data gives its well-known EC codewords")
    func helloWorld() {
        let data: [UInt8] = [32, 91, 11, 120, 209, 114, 220, 77, 67, 64, 236, 17, 236, 17, 236, 17]
        let expected: [UInt8] = [196, 35, 39, 119, 235, 215, 231, 226, 93, 23]
        #expect(ReedSolomon(degree: 10).remainder(of: data) == expected)
    }

    @Test(
        "every codeword is divisible by the generator: all syndromes are zero",
        arguments: [7, 10, 16, 18, 22, 24, 26, 28, 30])
    func syndromesVanish(degree: Int) {
        let rs = ReedSolomon(degree: degree)
        for length in [1, 13, 47, 120] {
            let data = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ degree &* 11 &+ 5) }
            let ec = rs.remainder(of: data)
            #expect(ec.count == degree)
            #expect(Self.syndromes(data + ec, count: degree).allSatisfy { $0 == 0 })
            // A single corrupted byte is detected.
            var corrupted = data + ec
            corrupted[length / 2] ^= 0x5A
            #expect(Self.syndromes(corrupted, count: degree).contains { $0 != 0 })
        }
    }

    @Test("table multiplication agrees with shift-and-add for every pair")
    func fieldMultiplication() {
        var mismatches = 0
        for a in 0...255 {
            for b in 0...255 where GaloisField.multiply(UInt8(a), UInt8(b)) != Self.slowMultiply(UInt8(a), UInt8(b)) {
                mismatches += 1
            }
        }
        #expect(mismatches == 0)
    }
}
