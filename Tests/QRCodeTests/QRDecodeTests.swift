import Foundation
import Testing
@testable import QRCode

/// Round trips through zbarimg (Debian zbar-tools): the symbols must scan with a real decoder.
@Suite("Decoding with zbarimg")
struct QRDecodeTests {
    static let texts: [String] = [
        "A",  // 1 byte
        "ABCDEFGHIJKLMNOPQ",  // 17 bytes: version 2
        "https://pay.example.com/redeem/K7P2-9QXM-4D8R-2WTF",  // the real shape, 50 bytes
        QRTestSupport.url(length: 80),
        QRTestSupport.url(length: 150),
        QRTestSupport.url(length: 300),
        "https://pay.example.com/redeem/K7P2-9QXM?who=Grüße-日本語-🎟️&x=<\"'>"
    ]

    @Test("URLs and texts of many lengths decode to the same bytes", arguments: texts)
    func roundTrip(text: String) async throws {
        let code = try QRCode(encoding: text)
        #expect(try await QRTestSupport.decode(code) == Array(text.utf8))
    }

    @Test(
        "a version's exact capacity and one byte more both decode (versions 1...10)",
        arguments: Array(1...10))
    func capacityEdges(version: Int) async throws {
        let capacity = QRTestSupport.standardByteCapacityM[version - 1]
        for length in [capacity, capacity + 1] {
            let text = QRTestSupport.url(length: length)
            let code = try QRCode(encoding: text)
            #expect(code.version == (length == capacity ? version : version + 1))
            #expect(try await QRTestSupport.decode(code) == Array(text.utf8), "\(length) bytes")
        }
    }

    @Test(
        "larger versions decode, up to the full version 40",
        arguments: [
            13, 20, 27, 34, 40
        ])
    func largeVersions(version: Int) async throws {
        let length = QRTestSupport.standardByteCapacityM[version - 1]
        let bytes = (0..<length).map { UInt8(0x21 + ($0 * 31) % 94) }  // printable ASCII
        let code = try await QRTestSupport.encode(bytes: bytes)
        #expect(code.version == version)
        #expect(try await QRTestSupport.decode(code, pixelsPerModule: 3) == bytes)
    }

    @Test("every mask pattern decodes (format bits and mask formulas are right)", arguments: Array(0..<8))
    func everyMask(mask: Int) async throws {
        for text in ["https://pay.example.com/redeem/K7P2-9QXM-4D8R-2WTF", QRTestSupport.url(length: 140)] {
            let code = try QRCode(bytes: Array(text.utf8), forcedMask: mask)
            #expect(code.mask == mask)
            #expect(try await QRTestSupport.decode(code) == Array(text.utf8))
        }
    }

    @Test("arbitrary binary bytes, including zero and 0xFF, round-trip")
    func binaryBytes() async throws {
        let bytes: [UInt8] = [0, 1, 2, 0x7F, 0x80, 0xFE, 0xFF, 0x0A, 0x0D, 0x20]
        #expect(try await QRTestSupport.decode(QRCode(bytes: bytes)) == bytes)
    }
}
