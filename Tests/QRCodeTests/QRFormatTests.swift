import Testing
@testable import QRCode

@Suite("Format and version information")
struct QRFormatTests {
    @Test("format bits for level M and masks 0...7 match the standard's table")
    func formatBits() {
        let table = [
            "101010000010010", "101000100100101", "101111001111100", "101101101001011",
            "100010111111001", "100000011001110", "100111110010111", "100101010100000"
        ]
        for mask in 0..<8 {
            #expect(String(QRFormat.formatBits(mask: mask), radix: 2).leftPadded(to: 15) == table[mask], "mask \(mask)")
        }
    }

    @Test("version information bits match the standard's table")
    func versionBits() {
        let table = [
            7: "000111110010010100", 8: "001000010110111100", 9: "001001101010011001",
            10: "001010010011010011", 40: "101000110001101001"
        ]
        for (version, bits) in table {
            #expect(String(QRFormat.versionBits(version: version), radix: 2).leftPadded(to: 18) == bits, "version \(version)")
        }
    }

    @Test("both format copies in a symbol carry the chosen mask's bits, and the dark module is set")
    func formatPlacement() throws {
        let code = try QRCode(encoding: QRTestSupport.url(length: 60))
        let bits = QRFormat.formatBits(mask: code.mask)
        let n = code.size
        // Copy 1, read bit 14 → 0: row 8 from the left (skipping timing column 6), then up column 8.
        let first = [
            (0, 8), (1, 8), (2, 8), (3, 8), (4, 8), (5, 8), (7, 8), (8, 8),
            (8, 7), (8, 5), (8, 4), (8, 3), (8, 2), (8, 1), (8, 0)
        ]
        // Copy 2, bit 14 → 0: up column 8 from the bottom, then row 8 from the left of the top-right finder.
        let second = (0..<7).map { (8, n - 1 - $0) } + (0..<8).map { (n - 8 + $0, 8) }
        for copy in [first, second] {
            let read = copy.reduce(0) { $0 << 1 | (code.isDark(x: $1.0, y: $1.1) ? 1 : 0) }
            #expect(read == bits)
        }
        #expect(code.isDark(x: 8, y: n - 8))
    }

    @Test("both version blocks of a version 7+ symbol carry the version bits")
    func versionPlacement() async throws {
        for length in [130, 300, 2331] {
            let code = try await QRTestSupport.encode(text: QRTestSupport.url(length: length))
            let n = code.size
            var topRight = 0, bottomLeft = 0
            for i in (0..<18).reversed() {
                topRight = topRight << 1 | (code.isDark(x: n - 11 + i % 3, y: i / 3) ? 1 : 0)
                bottomLeft = bottomLeft << 1 | (code.isDark(x: i / 3, y: n - 11 + i % 3) ? 1 : 0)
            }
            #expect(topRight == QRFormat.versionBits(version: code.version))
            #expect(bottomLeft == QRFormat.versionBits(version: code.version))
        }
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
