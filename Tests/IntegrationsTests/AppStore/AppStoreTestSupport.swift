import Crypto
import Foundation
import Integrations
import Testing
import TestSupport

/// Helpers shared by the App Store tests.
enum AppStoreTests {
    static let bundleID = "com.example.app"

    static func certificate(_ path: String) throws -> Certificate {
        try Certificate(der: SharedVectors.bytes(path))
    }

    /// A verifier trusting the fake PKI's root.
    static func verifier(
        _ pki: FakeApplePKI, environment: AppStoreEnvironment = .sandbox, appAppleID: Int? = nil,
        roots: [Certificate]? = nil
    ) -> AppStoreSignedDataVerifier {
        AppStoreSignedDataVerifier(
            trustedRoots: roots ?? [pki.root], bundleID: bundleID, appAppleID: appAppleID,
            environment: environment)
    }

    static func date(_ seconds: TimeInterval) -> Date { Date(timeIntervalSince1970: seconds) }
}

/// Expects `body` to throw an `AppStoreError.verification` of `kind`.
func expectVerificationError(
    _ kind: AppStoreError.Verification.Kind, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> Void
) {
    do {
        try body()
        Issue.record("expected \(kind), nothing was thrown", sourceLocation: sourceLocation)
    } catch AppStoreError.verification(let error) {
        #expect(error.kind == kind, "got \(error)", sourceLocation: sourceLocation)
        #expect(!error.message.isEmpty, sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected \(kind), got \(error)", sourceLocation: sourceLocation)
    }
}
