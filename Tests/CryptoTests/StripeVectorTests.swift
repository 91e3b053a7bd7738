import Crypto
import Foundation
import Testing

/// Proves that HMAC-SHA256 + hex + constant-time comparison reproduce Stripe's signature outcomes.
/// Header parsing and timestamp tolerance belong to the Integrations layer's verifier; here only the
/// cases about the signature itself are checked.
@Suite struct StripeVectorTests {
    struct Case: Decodable { let name: String; let secret: String; let timestamp: Int; let payload: String; let header: String; let expect: String }

    static func signatureMatches(_ testCase: Case) throws -> Bool {
        let mac = try HMACSHA256(key: Array(testCase.secret.utf8))
        let expected = try mac.authenticationCode(for: Array("\(testCase.timestamp).\(testCase.payload)".utf8))
        let v1 = testCase.header.split(separator: ",").compactMap { element -> String? in
            element.hasPrefix("v1=") ? String(element.dropFirst(3)) : nil
        }
        var matched = false
        for candidate in v1 {
            guard let bytes = try? Hex.decode(candidate) else { continue }
            if ConstantTime.equals(bytes, expected) { matched = true }
        }
        return matched
    }

    @Test func signatureCasesReproduceTheExpectedOutcome() throws {
        let cases = try JSONDecoder().decode([Case].self, from: Data(TestSupport.vector("stripe/webhook_vectors.json")))
        let signatureCases = cases.filter { ["ok", "no_matching_signature", "no_signatures_with_expected_scheme"].contains($0.expect) }
        #expect(signatureCases.count >= 8)
        for testCase in signatureCases {
            #expect(try Self.signatureMatches(testCase) == (testCase.expect == "ok"), "\(testCase.name)")
        }
    }

    @Test func signedEventFilesVerify() throws {
        let directory = TestSupport.vectorsDirectory.appendingPathComponent("stripe/events")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".sig") }
        #expect(!files.isEmpty)
        for file in files {
            let header = try TestSupport.vectorText("stripe/events/\(file)")
            let body = try TestSupport.vector("stripe/events/\(file.dropLast(4)).json")
            let mac = try HMACSHA256(key: Array("whsec_test_secret".utf8))
            let t = header.split(separator: ",").first { $0.hasPrefix("t=") }.map { String($0.dropFirst(2)) } ?? ""
            let given = header.split(separator: ",").first { $0.hasPrefix("v1=") }.map { String($0.dropFirst(3)) } ?? ""
            #expect(try mac.isValidAuthenticationCode(Hex.decode(given), for: Array("\(t).".utf8) + body), "\(file)")
        }
    }
}
