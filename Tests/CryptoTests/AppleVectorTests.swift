import Crypto
import Foundation
import Testing

@Suite struct AppleVectorTests {
    static func certificate(_ path: String) throws -> Certificate {
        try Certificate(der: TestSupport.vector(path))
    }

    static func mockVerifier() throws -> X5CVerifier {
        X5CVerifier(trustedRoots: [try certificate("apple/certs/testCA.der")])
    }

    @Test(arguments: ["transactionInfo", "renewalInfo", "testNotification", "wrongBundleId"])
    func mockSignedDataVerifiesAgainstTheTestRoot(name: String) throws {
        let compact = try TestSupport.vectorText("apple/mock_signed_data/\(name)")
        let jws = try Self.mockVerifier().verify(compact)
        #expect(jws.algorithm == "ES256")
        #expect(jws.x5c?.count == 3)
    }

    @Test func mockTransactionPayloadIsReadable() throws {
        struct Transaction: Decodable { let bundleId: String; let environment: String; let signedDate: Int64 }
        let jws = try Self.mockVerifier().verify(try TestSupport.vectorText("apple/mock_signed_data/transactionInfo"))
        let transaction = try jws.decodePayload(Transaction.self)
        #expect(transaction.bundleId == "com.example")
        #expect(transaction.environment == "Sandbox")
        #expect(transaction.signedDate == 1672956154000)
        #expect(jws.signedDateMilliseconds == 1672956154000)
    }

    @Test(arguments: ["missingX5CHeaderClaim", "legacyTransaction"])
    func malformedMockDataIsInvalidFormat(name: String) throws {
        let compact = try TestSupport.vectorText("apple/mock_signed_data/\(name)")
        do {
            try Self.mockVerifier().verify(compact)
            Issue.record("\(name) verified")
        } catch let error as CryptoError {
            #expect(error.kind == .invalidJWSFormat)
            #expect(error.jwsCategory == .invalidFormat)
        }
    }

    @Test(arguments: ["sandbox_test_notification.jws", "sandbox_consumable_transaction.jws"])
    func realAppleSignedDataVerifiesAtSignedDateOnlyAgainstTheRealRoot(name: String) throws {
        let compact = try TestSupport.vectorText("apple/real_apple_signed/\(name)")
        let realRoot = try Self.certificate("apple/testfile_certs/real_apple_root.der")
        let verifier = X5CVerifier(trustedRoots: [realRoot])
        let jws = try verifier.verify(compact)
        #expect(jws.signedDateMilliseconds != nil)

        // The same chain checked at "now": the leaf expired 2025-10-11.
        let x5c = try #require(jws.x5c)
        let leaf = try Certificate(der: Base64.decode(x5c[0]))
        let intermediate = try Certificate(der: Base64.decode(x5c[1]))
        do {
            _ = try verifier.verifyChain(leaf: leaf, intermediate: intermediate, at: Date())
            Issue.record("expired real leaf accepted at now")
        } catch let error as CryptoError {
            #expect(error.kind == .certificateExpired)
            #expect(error.jwsCategory == .invalidCertificate)
        }

        // Against Apple's test root instead of the real one: untrusted.
        expectCryptoError(.untrustedRoot) { try Self.mockVerifier().verify(compact) }
    }

    @Test func testfileChainsWithWrongMarkerOIDsAreRejected() throws {
        let verifier = X5CVerifier(trustedRoots: [try Self.certificate("apple/testfile_certs/root_ca.der")])
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        let intermediate = try Self.certificate("apple/testfile_certs/intermediate_ca.der")
        _ = try verifier.verifyChain(leaf: Self.certificate("apple/testfile_certs/leaf_cert.der"), intermediate: intermediate, at: date)
        expectCryptoError(.missingExtension) {
            _ = try verifier.verifyChain(
                leaf: Self.certificate("apple/testfile_certs/leaf_cert_invalid_oid.der"),
                intermediate: intermediate, at: date)
        }
        expectCryptoError(.missingExtension) {
            _ = try verifier.verifyChain(
                leaf: Self.certificate("apple/testfile_certs/leaf_cert_for_intermediate_ca_invalid_oid.der"),
                intermediate: Self.certificate("apple/testfile_certs/intermediate_ca_invalid_oid.der"), at: date)
        }
        #expect(try Self.certificate("apple/testfile_certs/leaf_cert.der").hasExtension(oid: X5CVerifier.appleLeafOID))
        #expect(try !Self.certificate("apple/testfile_certs/leaf_cert_invalid_oid.der").hasExtension(oid: X5CVerifier.appleLeafOID))
        #expect(try Self.certificate("apple/testfile_certs/leaf_cert_invalid_oid.der").hasExtension(oid: "1.2.840.113635.100.6.11.2"))
    }

    @Test func realAppleRootAndSigningChainAreReadAndVerified() throws {
        let root = try Self.certificate("apple/testfile_certs/real_apple_root.der")
        #expect(Hex.encode(try SHA256.hash(root.der)) == "63343abfb89a6a03ebb57e9b3f5fa7be7c4f5c756f3017b3a8c488c3653e9179")
        #expect(try root.subject().contains("CN=Apple Root CA - G3"))
        #expect(try root.notBefore() == Date(timeIntervalSince1970: 1_398_881_946))
        #expect(try root.notAfter() == Date(timeIntervalSince1970: 2_187_800_346))
        let pemRoot = try Certificate(pem: TestSupport.vectorText("apple/testfile_certs/real_apple_root.pem"))
        #expect(pemRoot.der == root.der)

        let leaf = try Self.certificate("apple/testfile_certs/real_apple_signing_certificate.der")
        let intermediate = try Self.certificate("apple/testfile_certs/real_apple_intermediate.der")
        let midLife = Date(timeIntervalSince1970: 1_780_000_000)  // 2026-05-28, inside the leaf's validity
        #expect(try Certificate.verifyChain(leaf: leaf, intermediates: [intermediate], roots: [root], at: midLife) == 3)
        let key = try X5CVerifier(trustedRoots: [root]).verifyChain(leaf: leaf, intermediate: intermediate, at: midLife)
        #expect(key.algorithm == .es256)
        expectCryptoError(.certificateNotYetValid) {
            _ = try Certificate.verifyChain(leaf: leaf, intermediates: [intermediate], roots: [root], at: Date(timeIntervalSince1970: 1_600_000_000))
        }
        expectCryptoError(.untrustedRoot) {
            _ = try Certificate.verifyChain(leaf: leaf, intermediates: [], roots: [root], at: midLife)
        }
    }
}
