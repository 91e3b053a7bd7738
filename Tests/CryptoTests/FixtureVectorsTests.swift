import Foundation
import TestSupport
import Testing

/// The test vectors travel with the repository (`Tests/Fixtures/vectors/`): a clone with nothing
/// beside it has every vector, its licence and the note of where it came from.
@Suite("Test vectors are part of the repository")
struct FixtureVectorsTests {
    /// This checkout's root, from this file's path (`Tests/CryptoTests/FixtureVectorsTests.swift`).
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().standardized.path

    @Test("Vectors are read from inside the checkout unless TOLLGATE_VECTORS says otherwise")
    func readFromTheCheckout() {
        #expect(SharedVectors.repositoryCopy.standardized.path == Self.packageRoot + "/Tests/Fixtures/vectors")
        if let override = ProcessInfo.processInfo.environment["TOLLGATE_VECTORS"], !override.isEmpty {
            #expect(SharedVectors.directory.path == URL(fileURLWithPath: override).path)
        } else {
            #expect(SharedVectors.directory == SharedVectors.repositoryCopy)
        }
    }

    @Test(
        "Licences and provenance are kept beside the vectors",
        arguments: [
            "apple/LICENSE.txt", "google/google-auth-testdata/LICENSE", "stripe/stripe-mock-LICENSE"
        ])
    func licences(_ licence: String) throws {
        let copy = SharedVectors.repositoryCopy.appendingPathComponent(licence).path
        #expect(FileManager.default.fileExists(atPath: copy), "\(copy)")
        let provenance = try String(contentsOfFile: Self.packageRoot + "/Tests/Fixtures/README.md", encoding: .utf8)
        #expect(provenance.contains("`vectors/\(licence)`"), "Tests/Fixtures/README.md names \(licence)")
    }

    @Test(
        "Every folder the tests read from is in the copy",
        arguments: [
            "apple/certs/testCA.der", "apple/mock_signed_data/testNotification", "apple/models/signedTransaction.json",
            "apple/real_apple_signed/sandbox_test_notification.jws", "apple/testfile_certs/real_apple_root.der",
            "apple/xcode/xcode-signed-transaction", "google/androidpublisher.v3.json", "google/sa_jwt_vector.json",
            "google/google-auth-testdata/service_account.json", "stripe/webhook_vectors.json",
            "stripe/events/invoice.paid.sig", "standard-webhooks/signature.json"
        ])
    func present(_ file: String) throws {
        let bytes = try Data(contentsOf: SharedVectors.repositoryCopy.appendingPathComponent(file))
        #expect(!bytes.isEmpty)
    }
}
