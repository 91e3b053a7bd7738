import Crypto
import Foundation
import Testing

@Suite struct DigestTests {
    @Test func sha256MatchesNISTVectors() throws {
        #expect(
            Hex.encode(try SHA256.hash(Array("abc".utf8)))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            Hex.encode(try SHA256.hash(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(
            Hex.encode(try SHA256.hash([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func streamingSHA256EqualsOneShotAndForksOnCopy() throws {
        var hasher = try SHA256()
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
        for _ in 0..<500 { try hasher.update(chunk) }
        let halfway = hasher
        for _ in 0..<500 { try hasher.update(chunk) }
        #expect(Hex.encode(try hasher.finalize()) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        #expect(try halfway.finalize() == SHA256.hash([UInt8](repeating: UInt8(ascii: "a"), count: 500_000)))
    }

    /// RFC 4231 test cases 1–7 for HMAC-SHA256; case 5 publishes only a 128-bit prefix.
    @Test(arguments: [
        (
            1, "0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b", Hex.encode(Array("Hi There".utf8)),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
        ),
        (
            2, Hex.encode(Array("Jefe".utf8)), Hex.encode(Array("what do ya want for nothing?".utf8)),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        ),
        (
            3, String(repeating: "aa", count: 20), String(repeating: "dd", count: 50),
            "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"
        ),
        (
            4, "0102030405060708090a0b0c0d0e0f10111213141516171819", String(repeating: "cd", count: 50),
            "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"
        ),
        (
            5, String(repeating: "0c", count: 20), Hex.encode(Array("Test With Truncation".utf8)),
            "a3b6167473100ee06e0c796c2955552b"
        ),
        (
            6, String(repeating: "aa", count: 131), Hex.encode(Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        ),
        (
            7, String(repeating: "aa", count: 131),
            Hex.encode(
                Array(
                    "This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm."
                        .utf8)),
            "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"
        )
    ])
    func hmacSHA256MatchesRFC4231(testCase: Int, key: String, data: String, expected: String) throws {
        let mac = try HMACSHA256.authenticationCode(for: TestSupport.hex(data), key: TestSupport.hex(key))
        let expectedBytes = TestSupport.hex(expected)
        #expect(mac.count == 32)
        #expect(ConstantTime.equals(mac.prefix(expectedBytes.count), expectedBytes), "RFC 4231 case \(testCase)")
        if expectedBytes.count == 32 {
            #expect(try HMACSHA256(key: TestSupport.hex(key)).isValidAuthenticationCode(expectedBytes, for: TestSupport.hex(data)))
        }
    }

    @Test func hmacRejectsWrongOrTruncatedMacs() throws {
        let key = try HMACSHA256(key: Array("key".utf8))
        var mac = try key.authenticationCode(for: Array("message".utf8))
        #expect(try key.isValidAuthenticationCode(mac, for: Array("message".utf8)))
        #expect(try !key.isValidAuthenticationCode(Array(mac.prefix(16)), for: Array("message".utf8)))
        mac[31] ^= 1
        #expect(try !key.isValidAuthenticationCode(mac, for: Array("message".utf8)))
    }

    @Test func constantTimeEqualityComparesBytesAndLengths() {
        #expect(ConstantTime.equals([UInt8](), [UInt8]()))
        #expect(ConstantTime.equals([1, 2, 3] as [UInt8], [1, 2, 3] as [UInt8]))
        #expect(!ConstantTime.equals([1, 2, 3] as [UInt8], [1, 2, 4] as [UInt8]))
        #expect(!ConstantTime.equals([1, 2, 3] as [UInt8], [1, 2] as [UInt8]))
    }

    @Test func secureRandomReturnsDistinctBytesOfTheRequestedLength() throws {
        let a = try SecureRandom.bytes(count: 32)
        let b = try SecureRandom.bytes(count: 32)
        #expect(a.count == 32 && b.count == 32)
        #expect(a != b)
        #expect(try SecureRandom.bytes(count: 0).isEmpty)
        expectCryptoError(.invalidParameter) { _ = try SecureRandom.bytes(count: -1) }
    }

    @Test("Random draws from many tasks at once, of every small size and past the pool, never repeat and are never zeroed")
    func secureRandomDrawsNeverRepeat() async throws {
        // 8 tasks × 400 draws of 1–300 bytes: the 4 KiB pool refills hundreds of times, while
        // other tasks draw. A draw handed out twice, or zeroed before it was copied, shows here.
        let draws = try await withThrowingTaskGroup(of: [[UInt8]].self) { group in
            for task in 0..<8 {
                group.addTask { try (0..<400).map { try SecureRandom.bytes(count: 1 + ($0 * 37 + task * 11) % 300) } }
            }
            return try await group.reduce(into: [[UInt8]]()) { $0 += $1 }
        }
        #expect(draws.count == 3200)
        let long = draws.filter { $0.count >= 16 }
        #expect(Set(long).count == long.count, "a draw of 16 bytes or more repeated")
        #expect(long.allSatisfy { $0.contains { $0 != 0 } }, "a draw was all zeros")
        // Every byte value turns up about equally often over ~470,000 bytes (expected ~1,800 each).
        var counts = [Int](repeating: 0, count: 256)
        for draw in draws { for byte in draw { counts[Int(byte)] += 1 } }
        let expected = Double(counts.reduce(0, +)) / 256
        #expect(counts.allSatisfy { abs(Double($0) - expected) < expected * 0.2 })
    }
}
