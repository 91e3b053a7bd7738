import Crypto
import Foundation
import Testing

@testable import TollgateClient

/// The client's own SHA-256 and PKCE challenge, against FIPS 180-4's vectors and the service's
/// OpenSSL-backed SHA-256.
@Suite("PKCE in the client")
struct PKCETests {
    @Test("SHA-256 matches FIPS 180-4's vectors and OpenSSL for lengths around the block boundaries")
    func sha256() throws {
        #expect(Hex.encode(SHA256Digest.hash(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Hex.encode(SHA256Digest.hash([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        for length in [1, 55, 56, 63, 64, 65, 119, 120, 1000] {
            let message = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            #expect(SHA256Digest.hash(message) == (try SHA256.hash(message)), "length \(length)")
        }
    }

    @Test("A verifier is 43 base64url characters; its challenge is base64url(SHA-256(verifier)); each is fresh")
    func pkce() throws {
        let pkce = PKCE.make()
        #expect(pkce.verifier.count == 43 && pkce.challenge.count == 43)
        #expect(pkce.challenge == Base64URL.encode(try SHA256.hash(Array(pkce.verifier.utf8))))
        #expect(PKCE.make().verifier != pkce.verifier)
    }
}
