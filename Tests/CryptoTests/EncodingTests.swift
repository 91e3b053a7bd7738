import Crypto
import Foundation
import Testing

@Suite struct EncodingTests {
    @Test func base64MatchesRFC4648AndRoundTrips() throws {
        let cases = ["": "", "f": "Zg==", "fo": "Zm8=", "foo": "Zm9v", "foob": "Zm9vYg==", "fooba": "Zm9vYmE=", "foobar": "Zm9vYmFy"]
        for (plain, encoded) in cases {
            #expect(Base64.encode(Array(plain.utf8)) == encoded)
            #expect(try Base64.decode(encoded) == Array(plain.utf8))
        }
        for length in 0..<70 {
            let bytes = try SecureRandom.bytes(count: length)
            #expect(try Base64.decode(Base64.encode(bytes)) == bytes)
            #expect(try Base64URL.decode(Base64URL.encode(bytes)) == bytes)
            #expect(Base64.encode(bytes) == Data(bytes).base64EncodedString())
        }
    }

    @Test(arguments: [
        "Zg", "Zg=", "Zg===", "Zh==", "Zm9=", "Z===", "Zm 9v", "Zm9v\n", " Zm9v", "Zm9v=", "Zm-v", "Zm_v", "Zm9vY", "=Zm9", "Zm=v", "Zg==Zg=="
    ])
    func base64RejectsMalformedInput(text: String) {
        expectCryptoError(.malformedEncoding) { _ = try Base64.decode(text) }
    }

    @Test func base64URLUsesURLAlphabetWithoutPadding() throws {
        #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
        #expect(try Base64URL.decode("-_8") == [0xFB, 0xFF])
        #expect(try Base64URL.decode("eyJhbGciOiJSUzI1NiJ9") == Array("{\"alg\":\"RS256\"}".utf8))
    }

    @Test(arguments: ["Zg==", "Zg=", "+/8", "-_9", "Zh", "Z", "Zm9vY", "Zm 9v", "Zm9v\r\n", "é"])
    func base64URLRejectsMalformedInput(text: String) {
        expectCryptoError(.malformedEncoding) { _ = try Base64URL.decode(text) }
    }

    @Test("base64 and base64url of every length up to 64 agree with Foundation's encoder and decode back")
    func base64EveryLength() throws {
        var generator = SystemRandomNumberGenerator()
        for length in 0...64 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let reference = Data(bytes).base64EncodedString()
            #expect(Base64.encode(bytes) == reference, "length \(length)")
            let urlSafe = reference.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            #expect(Base64URL.encode(bytes) == urlSafe, "length \(length)")
            #expect(try Base64.decode(Base64.encode(bytes)) == bytes && Base64URL.decode(Base64URL.encode(bytes)) == bytes)
        }
    }

    @Test func hexRoundTripsAndRejectsGarbage() throws {
        #expect(Hex.encode([0x00, 0xAB, 0xFF]) == "00abff")
        #expect(Hex.encode([UInt8]()).isEmpty)
        let everyByte = (0...255).map { UInt8($0) }
        #expect(try Hex.decode(Hex.encode(everyByte)) == everyByte)
        #expect(Hex.encode(everyByte).hasPrefix("000102030405060708090a0b") && Hex.encode(everyByte).hasSuffix("fafbfcfdfeff"))
        // FIPS 180-2's first example, as every stored hash is written.
        #expect(Hex.encode(try SHA256.hash(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(try Hex.decode("00ABff") == [0x00, 0xAB, 0xFF])
        #expect(try Hex.decode("").isEmpty)
        for bad in ["0", "0g", "zz", "0x00", " 00", "00 "] {
            expectCryptoError(.malformedEncoding) { _ = try Hex.decode(bad) }
        }
    }
}
