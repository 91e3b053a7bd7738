import Testing
@testable import QRCode

@Suite("Masks and penalties")
struct QRMaskTests {
    static func matrix(_ isDark: (Int, Int) -> Bool) -> QRMatrix {
        var matrix = QRMatrix(version: 1)
        for y in 0..<21 { for x in 0..<21 { matrix.dark[y * 21 + x] = isDark(x, y) } }
        return matrix
    }

    @Test("an all-light 21×21 grid scores 19 per line, 3 per 2×2 square, 100 for balance")
    func allLight() {
        let m = Self.matrix { _, _ in false }
        #expect(QRMask.runPenalty(m) == 42 * (3 + 16))
        #expect(QRMask.blockPenalty(m) == 20 * 20 * 3)
        #expect(QRMask.finderLikePenalty(m) == 0)
        #expect(QRMask.balancePenalty(m) == 100)
    }

    @Test("a checkerboard scores nothing")
    func checkerboard() {
        let m = Self.matrix { x, y in (x + y) % 2 == 0 }
        #expect(QRMask.penalty(m) == 0)
    }

    @Test("a 1:1:3:1:1 pattern with light on both sides scores 40 per side; balance counts full 5 % steps")
    func finderLikeAndBalance() {
        let pattern = [true, false, true, true, true, false, true]
        let m = Self.matrix { x, y in y == 10 && (7..<14).contains(x) && pattern[x - 7] }
        #expect(QRMask.finderLikePenalty(m) == 80)
        // 44.9 % dark is one full 5 % step from 50 % (10 points); 45.1 % is none.
        let dark198 = Self.matrix { x, y in y * 21 + x < 198 }  // 198 / 441 = 44.9 %
        let dark199 = Self.matrix { x, y in y * 21 + x < 199 }  // 45.1 %
        let dark352 = Self.matrix { x, y in y * 21 + x < 352 }  // 79.8 %: five full steps
        #expect(QRMask.balancePenalty(dark198) == 10)
        #expect(QRMask.balancePenalty(dark199) == 0)
        #expect(QRMask.balancePenalty(dark352) == 50)
    }

    @Test("masks invert exactly the modules of their condition, never function modules")
    func maskConditions() {
        let base = QRMatrix(version: 2)
        let masked = QRMask.apply(pattern: 1, to: base)
        for y in 0..<base.size {
            for x in 0..<base.size where !base.isFunction[y * base.size + x] {
                #expect(masked.isDark(x: x, y: y) == (y % 2 == 0))
            }
        }
        // Finder centre and timing stay as drawn.
        #expect(masked.isDark(x: 3, y: 3) && masked.isDark(x: 8, y: 6) && !masked.isDark(x: 9, y: 6))
    }

    @Test("the encoder picks the lowest-penalty mask")
    func lowestPenaltyChosen() throws {
        for length in [1, 20, 61, 150] {
            let bytes = Array(QRTestSupport.url(length: length).utf8)
            let chosen = try QRCode(bytes: bytes)
            let scores = try (0..<8).map { mask in
                let forced = try QRCode(bytes: bytes, forcedMask: mask)
                var matrix = QRMatrix(version: forced.version)
                matrix.dark = forced.modules
                return QRMask.penalty(matrix)
            }
            let minimum = try #require(scores.min())
            #expect(scores[chosen.mask] == minimum)
            #expect(scores.firstIndex(of: minimum) == chosen.mask)
        }
    }
}
