import Testing
@testable import QRCode

@Suite("Versions and capacity")
struct QRCapacityTests {
    @Test("byte-mode level-M capacity of every version matches the standard's table")
    func capacityTable() {
        let computed = (1...40).map { QRSpec.byteCapacity(version: $0) }
        #expect(computed == QRTestSupport.standardByteCapacityM)
        #expect(QRCode.maximumByteCount == 2331)
    }

    @Test("the codeword count matches the modules a built symbol leaves free of function patterns")
    func freeModules() {
        for version in 1...40 {
            let matrix = QRMatrix(version: version)
            let free = matrix.isFunction.filter { !$0 }.count
            #expect(free == QRSpec.dataModules(version: version), "version \(version)")
        }
        // Known totals: v1 26, v7 196, v10 346, v40 3706 codewords.
        #expect([1, 7, 10, 40].map { QRSpec.totalCodewords(version: $0) } == [26, 196, 346, 3706])
    }

    @Test("the smallest fitting version is chosen, and one byte past a version's capacity moves up")
    func versionChoice() async throws {
        for (index, capacity) in QRTestSupport.standardByteCapacityM.enumerated() {
            let version = index + 1
            #expect(QRSpec.smallestVersion(forByteCount: capacity) == version)
            #expect(QRSpec.smallestVersion(forByteCount: capacity + 1) == (version < 40 ? version + 1 : nil))
        }
        // Full encodes at a few edges (versions 1...10 are also decoded in QRDecodeTests).
        for (length, version) in [(14, 1), (15, 2), (450, 16), (451, 17), (2331, 40)] {
            #expect(try await QRTestSupport.encode(bytes: [UInt8](repeating: 0x41, count: length)).version == version)
        }
        #expect(try QRCode(bytes: []).version == 1)
        #expect(try QRCode(encoding: "ABCDEFGHIJKLMNOPQ").version == 2)  // 17 bytes > 14
        #expect(try QRCode(encoding: "https://pay.example.com/redeem/K7P2-9QXM-4D8R-2WTF").version == 4)  // 50 > 42
        let code = try QRCode(encoding: QRTestSupport.url(length: 300))  // 300 > 287 (v12)
        #expect(code.version == 13)
        #expect(code.size == 69)
    }

    @Test("more than 2331 bytes throws dataTooLong with the counts in its message")
    func tooLong() throws {
        #expect(throws: QRCodeError.dataTooLong(byteCount: 2332, maximum: 2331)) {
            try QRCode(bytes: [UInt8](repeating: 7, count: 2332))
        }
        let text = String(repeating: "é", count: 1200)  // 2400 UTF-8 bytes
        let error = try #require(throws: QRCodeError.self) { try QRCode(encoding: text) }
        #expect(error == .dataTooLong(byteCount: 2400, maximum: 2331))
        #expect(error.description.contains("2400 bytes"))
        #expect(error.description.contains("2331"))
    }

    @Test("data codewords: mode, count, bytes, terminator and alternating 0xEC 0x11 pads")
    func dataCodewords() {
        // "AB" at version 1: 0100 00000010 01000001 01000010 0000 → 40 24 14 20, then pads.
        let codewords = QRCodewords.dataCodewords(for: Array("AB".utf8), version: 1)
        #expect(
            codewords == [
                0x40, 0x24, 0x14, 0x20, 0xEC, 0x11, 0xEC, 0x11,
                0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11
            ])
        // Version 10 uses a 16-bit count: 0100 0000000000000001 01011010 0000 → 40 00 15 A0.
        let v10 = QRCodewords.dataCodewords(for: [0x5A], version: 10)
        #expect(Array(v10.prefix(4)) == [0x40, 0x00, 0x15, 0xA0])
        #expect(v10.count == QRSpec.dataCodewords(version: 10))
    }

    @Test("interleaving puts data then EC in column order, and every block's EC is correct")
    func interleaving() {
        // Version 8-M: 2 blocks of 38 and 2 of 39 data codewords, 22 EC each.
        let version = 8
        let data = (0..<QRSpec.dataCodewords(version: version)).map { UInt8(truncatingIfNeeded: $0 * 13 + 1) }
        let out = QRCodewords.interleaved(data: data, version: version)
        #expect(out.count == QRSpec.totalCodewords(version: version))
        #expect(data.count == 2 * 38 + 2 * 39)
        let starts = [0, 38, 76, 115]
        // First column: the first byte of each block; last data byte comes from block 4 only.
        #expect(Array(out.prefix(4)) == starts.map { data[$0] })
        #expect(out[4 * 38] == data[76 + 38])
        #expect(out[4 * 38 + 1] == data[115 + 38])
        // De-interleave EC and check every block's codeword has zero syndromes.
        let ecStart = data.count
        for block in 0..<4 {
            let length = block < 2 ? 38 : 39
            let blockData = Array(data[starts[block]..<starts[block] + length])
            let ec = (0..<22).map { out[ecStart + $0 * 4 + block] }
            #expect(ReedSolomonTests.syndromes(blockData + ec, count: 22).allSatisfy { $0 == 0 })
        }
    }
}
