import Crypto
import Foundation
import JSON
import Testing

@Suite struct SignatureTests {
    // RFC 7515 appendix A.2 (RS256) and A.3 (ES256).
    static let a2Compact =
        "eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.cC4hiUPoj9Eetdgtv3hF80EGrhuB__dzERat0XF9g2VtQgr9PJbu3XOiZj5RZmh7AAuHIm4Bh-0Qc_lF5YKt_O8W2Fp5jujGbds9uJdbF9CUAr7t1dnZcAcQjbKBYNX4BAynRFdiuB--f_nZLgrnbyTyWzO75vRK5h6xBArLIARNPvkSjtQBMHlb1L07Qe7K0GarZRmB_eSN9383LcOLn6_dO--xi12jzDwusC-eOkHWEsqtFZESc6BfI7noOPqvhJ1phCnvWh6IeYI2w9QOYEUipUTI8np6LbgGY9Fs98rqVt5AXLIhWkWywlVmtVrBp0igcN_IoypGlUPQGe77Rw"
    static let a2Key = [
        "ofgWCuLjybRlzo0tZWJjNiuSfb4p4fAkd_wWJcyQoTbji9k0l8W26mPddxHmfHQp-Vaw-4qPCJrcS2mJPMEzP1Pt0Bm4d4QlL-yRT-SFd2lZS-pCgNMsD1W_YpRPEwOWvG6b32690r2jZ47soMZo9wGzjb_7OMg0LOL-bSf63kpaSHSXndS5z5rexMdbBYUsLA9e-KXBdQOS-UTo7WTBEMa2R2CapHg665xsmtdVMTBQY4uDZlxvb3qCo5ZwKh9kG4LT6_I5IhlJH7aGhyxXFvUK-DWNmoudF8NAco9_h9iaGNj8q2ethFkMLs91kzk2PAcDTW9gb54h4FRWyuXpoQ",
        "AQAB",
        "Eq5xpGnNCivDflJsRQBXHx1hdR1k6Ulwe2JZD50LpXyWPEAeP88vLNO97IjlA7_GQ5sLKMgvfTeXZx9SE-7YwVol2NXOoAJe46sui395IW_GO-pWJ1O0BkTGoVEn2bKVRUCgu-GjBVaYLU6f3l9kJfFNS3E0QbVdxzubSu3Mkqzjkn439X0M_V51gfpRLI9JYanrC4D4qAdGcopV_0ZHHzQlBjudU2QvXt4ehNYTCBr6XCLQUShb1juUO1ZdiYoFaFQT5Tw8bGUl_x_jTj3ccPDVZFD9pIuhLhBOneufuBiB4cS98l2SR_RQyGWSeWjnczT0QU91p1DhOVRuOopznQ",
        "4BzEEOtIpmVdVEZNCqS7baC4crd0pqnRH_5IB3jw3bcxGn6QLvnEtfdUdiYrqBdss1l58BQ3KhooKeQTa9AB0Hw_Py5PJdTJNPY8cQn7ouZ2KKDcmnPGBY5t7yLc1QlQ5xHdwW1VhvKn-nXqhJTBgIPgtldC-KDV5z-y2XDwGUc",
        "uQPEfgmVtjL0Uyyx88GZFF1fOunH3-7cepKmtH4pxhtCoHqpWmT8YAmZxaewHgHAjLYsp1ZSe7zFYHj7C6ul7TjeLQeZD_YwD66t62wDmpe_HlB-TnBA-njbglfIsRLtXlnDzQkv5dTltRJ11BKBBypeeF6689rjcJIDEz9RWdc",
        "BwKfV3Akq5_MFZDFZCnW-wzl-CCo83WoZvnLQwCTeDv8uzluRSnm71I3QCLdhrqE2e9YkxvuxdBfpT_PI7Yz-FOKnu1R6HsJeDCjn12Sk3vmAktV2zb34MCdy7cpdTh_YVr7tss2u6vneTwrA86rZtu5Mbr1C1XsmvkxHQAdYo0",
        "h_96-mK1R_7glhsum81dZxjTnYynPbZpHziZjeeHcXYsXaaMwkOlODsWa7I9xXDoRwbKgB719rrmI2oKr6N3Do9U0ajaHF-NKJnwgjMd2w9cjz3_-kyNlxAr2v4IKhGNpmM5iIgOS1VZnOZ68m6_pbLBSp3nssTdlqvd0tIiTHU",
        "IYd7DHOhrWvxkwPQsRM2tOgrjbcrfvtQJipd-DlcxyVuuM9sQLdgjVk2oy26F0EmpScGLq2MowX7fhd_QJQ3ydy5cY7YIBi87w93IKLEdfnbJtoOPLUW0ITrJReOgo1cq9SbsxYawBgfp_gh6A5603k2-ZQwVK0JKSHuLFkuQ3U"
    ]
    static let a3Compact =
        "eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q"

    @Test func rfc7515A2RS256VerifiesAndSigningReproducesTheSignature() throws {
        let jws = try CompactJWS(parsing: Self.a2Compact)
        let publicKey = try VerificationKey(der: TestSupport.rsaPublicKeyDER(n: Self.a2Key[0], e: Self.a2Key[1]))
        #expect(publicKey.algorithm == .rs256)
        try jws.verify(with: publicKey)
        let privateKey = try SigningKey(der: TestSupport.rsaPrivateKeyDER(Self.a2Key))
        #expect(try privateKey.sign(jws.signingInput) == jws.signature)
        #expect(try CompactJWS.sign(headerJSON: jws.header, payloadJSON: jws.payload, key: privateKey) == Self.a2Compact)
    }

    @Test func rfc7515A3ES256Verifies() throws {
        let jws = try CompactJWS(parsing: Self.a3Compact)
        let key = try VerificationKey(
            der: TestSupport.p256PublicKeyDER(
                x: "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU", y: "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"))
        #expect(key.algorithm == .es256)
        try jws.verify(with: key)
        var tampered = jws.signature
        tampered[5] ^= 0x40
        #expect(try !key.isValidSignature(tampered, for: jws.signingInput))
        expectCryptoError(.malformedSignature) { _ = try key.isValidSignature(Array(jws.signature.prefix(63)), for: jws.signingInput) }
        expectCryptoError(.malformedSignature) { _ = try key.isValidSignature(jws.signature + [0], for: jws.signingInput) }
        // The RS256 key must not verify an ES256 token.
        let rsa = try VerificationKey(der: TestSupport.rsaPublicKeyDER(n: Self.a2Key[0], e: Self.a2Key[1]))
        expectCryptoError(.unsupportedAlgorithm) { try jws.verify(with: rsa) }
    }

    @Test func appleP8KeySignsES256JWTsThatVerify() throws {
        let key = try SigningKey(pem: TestSupport.vectorText("apple/certs/testSigningKey.p8"))
        #expect(key.algorithm == .es256)
        let header: JSONValue = ["alg": "ES256", "kid": "ABC123DEFG", "typ": "JWT"]
        let claims: JSONValue = [
            "iss": "57246542-96fe-1a63-e053-0824d011072a", "iat": 1700000000, "exp": 1700003600,
            "aud": "appstoreconnect-v1", "bid": "com.example"
        ]
        let token = try CompactJWS.sign(header: header, claims: claims, key: key)
        let jws = try CompactJWS(parsing: token)
        #expect(String(decoding: jws.header, as: UTF8.self) == #"{"alg":"ES256","kid":"ABC123DEFG","typ":"JWT"}"#)
        #expect(jws.signature.count == 64)
        #expect(jws.keyID == "ABC123DEFG")
        try jws.verify(with: key.verificationKey())
        expectCryptoError(.signatureMismatch) { try jws.verify(with: try SigningKey.generateES256().verificationKey()) }
    }

    @Test func encodableClaimsAreSerializedWithSortedKeysAndPlainSlashes() throws {
        struct Claims: Encodable { let scope: String; let aud: String; let iat: Int }
        struct Header: Encodable { let typ: String; let alg: String }
        let key = try SigningKey.generateES256()
        let token = try CompactJWS.sign(
            header: Header(typ: "JWT", alg: "ES256"),
            claims: Claims(scope: "https://x/y", aud: "a", iat: 1), key: key)
        let jws = try CompactJWS(parsing: token)
        #expect(String(decoding: jws.header, as: UTF8.self) == #"{"alg":"ES256","typ":"JWT"}"#)
        #expect(String(decoding: jws.payload, as: UTF8.self) == #"{"aud":"a","iat":1,"scope":"https://x/y"}"#)
        try jws.verify(with: key.verificationKey())
    }

    @Test func googleServiceAccountAssertionIsReproducedByteForByte() throws {
        // The vector's `aud` is the current token endpoint, not the file's legacy `token_uri`.
        struct ServiceAccount: Decodable { let private_key: String; let private_key_id: String; let client_email: String }
        let account = try JSONDecoder().decode(
            ServiceAccount.self, from: Data(TestSupport.vector("google/google-auth-testdata/service_account.json")))
        struct Vector: Decodable { let header_json: String; let claims_json: String; let assertion: String }
        let vector = try JSONDecoder().decode(Vector.self, from: Data(TestSupport.vector("google/sa_jwt_vector.json")))
        let key = try SigningKey(pem: account.private_key)
        #expect(key.algorithm == .rs256)
        let header: JSONValue = ["alg": "RS256", "typ": "JWT", "kid": .string(account.private_key_id)]
        let claims: JSONValue = [
            "iss": .string(account.client_email), "scope": "https://www.googleapis.com/auth/androidpublisher",
            "aud": "https://oauth2.googleapis.com/token", "iat": 1700000000, "exp": 1700003600
        ]
        #expect(header.serialized() == Array(vector.header_json.utf8))
        #expect(claims.serialized() == Array(vector.claims_json.utf8))
        let assertion = try CompactJWS.sign(header: header, claims: claims, key: key)
        #expect(assertion == vector.assertion)
        let jws = try CompactJWS(parsing: assertion)
        #expect(jws.signingInput == Array(try TestSupport.vectorText("google/sa_jwt_signing_input.txt").utf8))
        #expect(jws.signature == (try TestSupport.vector("google/sa_jwt_signature.bin")))
        try jws.verify(with: VerificationKey(pem: TestSupport.vectorText("google/sa_pub.pem")))
        try jws.verify(with: VerificationKey(pem: TestSupport.vectorText("google/google-auth-testdata/public_cert.pem")))
    }

    @Test func pkcs8AndPKCS1RSAKeysSignIdentically() async throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = TestSupport.vectorsDirectory.appendingPathComponent("google/google-auth-testdata/privatekey.pem").path
        try await TestSupport.openssl(["pkcs8", "-topk8", "-nocrypt", "-in", source, "-out", "pkcs8.pem"], in: directory)
        let pkcs8 = try String(contentsOf: directory.appendingPathComponent("pkcs8.pem"), encoding: .utf8)
        #expect(pkcs8.contains("BEGIN PRIVATE KEY"))
        let pkcs1 = try TestSupport.vectorText("google/google-auth-testdata/privatekey.pem")
        #expect(pkcs1.contains("BEGIN RSA PRIVATE KEY"))
        let message = Array("same input".utf8)
        #expect(try SigningKey(pem: pkcs8).sign(message) == SigningKey(pem: pkcs1).sign(message))
    }

    @Test func keysOtherThanP256OrStrongRSAAreRejected() async throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await TestSupport.openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384", "-out", "p384.pem"], in: directory)
        try await TestSupport.openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024", "-out", "rsa1024.pem"], in: directory)
        try await TestSupport.openssl(["genpkey", "-algorithm", "ED25519", "-out", "ed25519.pem"], in: directory)
        try await TestSupport.openssl(["pkey", "-in", "p384.pem", "-pubout", "-out", "p384.pub"], in: directory)
        for file in ["p384.pem", "rsa1024.pem", "ed25519.pem"] {
            let pem = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
            expectCryptoError(.invalidKey) { _ = try SigningKey(pem: pem) }
        }
        let publicPEM = try String(contentsOf: directory.appendingPathComponent("p384.pub"), encoding: .utf8)
        expectCryptoError(.invalidKey) { _ = try VerificationKey(pem: publicPEM) }
    }

    @Test func rsaSignatureOfWrongLengthIsMalformed() throws {
        let key = try VerificationKey(der: TestSupport.rsaPublicKeyDER(n: Self.a2Key[0], e: Self.a2Key[1]))
        let jws = try CompactJWS(parsing: Self.a2Compact)
        expectCryptoError(.malformedSignature) { _ = try key.isValidSignature(Array(jws.signature.dropLast()), for: jws.signingInput) }
        var flipped = jws.signature
        flipped[100] ^= 1
        #expect(try !key.isValidSignature(flipped, for: jws.signingInput))
    }
}
