import Crypto
import Foundation
import Integrations
import JSON
import Testing
import TestSupport

/// `EXTERNAL_PURCHASE_TOKEN` notifications (Apple's examples in
/// `vectors/apple/models/signedExternalPurchaseToken*Notification.json`) have no `data`: the app
/// and the token are in `externalPurchaseToken`, and a sandbox token's id begins with `SANDBOX`.
@Suite("EXTERNAL_PURCHASE_TOKEN notifications")
struct ExternalPurchaseTokenNotificationTests {
    struct Unexpected: Error {}

    /// The vector as a `JSONValue`, to be signed by the fake PKI.
    static func payload(_ name: String) throws -> JSONValue {
        func convert(_ value: Any) throws -> JSONValue {
            switch value {
            case let string as String: return .string(string)
            case let number as NSNumber: return .integer(number.int64Value)
            case let object as [String: Any]: return .object(try object.keys.sorted().map { ($0, try convert(object[$0] as Any)) })
            case let array as [Any]: return .array(try array.map(convert))
            default: throw Unexpected()
            }
        }
        return try convert(try JSONSerialization.jsonObject(with: Data(SharedVectors.bytes("apple/models/\(name)"))))
    }

    @Test(
        "A production UNREPORTED notification verifies for its app and carries the token to report",
        arguments: [
            ("signedExternalPurchaseTokenNotification.json", AppStoreEnvironment.production, "b2158121-7af9-49d4-9561-1f588205523e"),
            ("signedExternalPurchaseTokenSandboxNotification.json", .sandbox, "SANDBOX_b2158121-7af9-49d4-9561-1f588205523e")
        ])
    func verifies(vector: String, environment: AppStoreEnvironment, purchaseID: String) async throws {
        let pki = try await FakeApplePKI.shared()
        let signed = try pki.signer().sign(Self.payload(vector))
        let verifier = AppStoreSignedDataVerifier(trustedRoots: [pki.root], bundleID: "com.example", appAppleID: 55555, environment: environment)
        let notification = try verifier.verifyNotification(signed)
        #expect(notification.notificationType == "EXTERNAL_PURCHASE_TOKEN")
        #expect(notification.subtype == "UNREPORTED")
        let token = try #require(notification.externalPurchaseToken)
        #expect(token.externalPurchaseID == purchaseID)
        #expect(token.bundleID == "com.example")
        #expect(token.appAppleID == 55555)
        #expect(token.creationDate == Date(timeIntervalSince1970: 1_698_148_950))
        #expect(try notification.snapshot(now: Date()) == nil, "a token notification changes no purchase")
    }

    @Test("A token notification for another app, or of the other environment, is refused")
    func refused() async throws {
        let pki = try await FakeApplePKI.shared()
        let signed = try pki.signer().sign(Self.payload("signedExternalPurchaseTokenNotification.json"))
        let otherApp = AppStoreSignedDataVerifier(trustedRoots: [pki.root], bundleID: "com.other", appAppleID: nil, environment: .production)
        expectVerificationError(.wrongAppIdentifier) { _ = try otherApp.verifyNotification(signed) }
        let otherID = AppStoreSignedDataVerifier(trustedRoots: [pki.root], bundleID: "com.example", appAppleID: 1, environment: .production)
        expectVerificationError(.wrongAppIdentifier) { _ = try otherID.verifyNotification(signed) }
        let sandbox = AppStoreSignedDataVerifier(trustedRoots: [pki.root], bundleID: "com.example", appAppleID: nil, environment: .sandbox)
        expectVerificationError(.wrongEnvironment) { _ = try sandbox.verifyNotification(signed) }
    }
}
