import Crypto
import Foundation
import Integrations
import JSON
import Testing
import TestSupport

@Suite("App Store signed data: chains made in the tests")
struct AppStoreGeneratedChainTests {
    /// A whole second (dates travel as milliseconds).
    let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))

    func transaction(signedDate: Date? = nil, bundleID: String = AppStoreTests.bundleID, environment: String = "Sandbox") -> FakeAppStoreTransaction {
        FakeAppStoreTransaction(
            transactionID: "2000000000000042", originalTransactionID: "2000000000000001", bundleID: bundleID,
            purchaseDate: now.addingTimeInterval(-3600), expiresDate: now.addingTimeInterval(30 * 86400),
            environment: environment, appAccountToken: "5E5A8F9C-1B2D-4C3E-9F00-ABCDEF012345", signedDate: signedDate ?? now)
    }

    @Test("A transaction signed like the App Store verifies and decodes every field")
    func validChain() async throws {
        let pki = try await FakeApplePKI.shared()
        let jws = try pki.signer().signTransaction(transaction())
        let header = try CompactJWS(parsing: jws)
        #expect(header.x5c?.count == 3)
        #expect(header.signature.count == 64)
        let decoded = try AppStoreTests.verifier(pki).verifyTransaction(jws, now: now)
        #expect(decoded.transactionID == "2000000000000042")
        #expect(decoded.originalTransactionID == "2000000000000001")
        #expect(decoded.productID == "com.example.monthly")
        #expect(decoded.type == "Auto-Renewable Subscription")
        #expect(decoded.inAppOwnershipType == "PURCHASED")
        #expect(decoded.appAccountToken == "5E5A8F9C-1B2D-4C3E-9F00-ABCDEF012345")
        #expect(abs(try #require(decoded.expiresDate).timeIntervalSince(now.addingTimeInterval(30 * 86400))) < 0.001)
    }

    @Test("A chain to another root is an invalid certificate")
    func wrongRoot() async throws {
        let pki = try await FakeApplePKI.shared()
        let jws = try pki.signer().signTransaction(transaction())
        expectVerificationError(.invalidCertificate) {
            _ = try AppStoreTests.verifier(pki, roots: [pki.otherRoot]).verifyTransaction(jws, now: now)
        }
        // x5c[2] is never trusted: listing our root only in the JWS does not help.
        expectVerificationError(.invalidCertificate) {
            _ = try AppStoreTests.verifier(pki, roots: [try AppleRootCertificates.appleRootCAG3]).verifyTransaction(jws, now: now)
        }
    }

    @Test("A leaf or intermediate without Apple's marker OID is an invalid certificate")
    func wrongOIDs() async throws {
        let pki = try await FakeApplePKI.shared()
        let verifier = AppStoreTests.verifier(pki)
        for chain in [FakeApplePKI.Chain.leafWithoutOID, .intermediateWithoutOID] {
            let jws = try pki.signer(chain).signTransaction(transaction())
            expectVerificationError(.invalidCertificate) { _ = try verifier.verifyTransaction(jws, now: now) }
        }
    }

    @Test("A leaf expired (or not yet valid) at the signedDate is an invalid certificate")
    func expiredLeaf() async throws {
        let pki = try await FakeApplePKI.shared()
        let verifier = AppStoreTests.verifier(pki)
        let signer = pki.signer(.shortLivedLeaf)
        let during = FakeApplePKI.shortLivedValidity.lowerBound.addingTimeInterval(3600)
        _ = try verifier.verifyTransaction(try signer.signTransaction(transaction(signedDate: during)), now: now)
        let late = try signer.signTransaction(transaction(signedDate: FakeApplePKI.shortLivedValidity.upperBound.addingTimeInterval(86400)))
        expectVerificationError(.invalidCertificate) { _ = try verifier.verifyTransaction(late, now: now) }
        let early = try signer.signTransaction(transaction(signedDate: FakeApplePKI.shortLivedValidity.lowerBound.addingTimeInterval(-86400)))
        expectVerificationError(.invalidCertificate) { _ = try verifier.verifyTransaction(early, now: now) }
        // Checked at the current time instead, the leaf of 2023 has expired whatever signedDate says.
        let atNow = AppStoreSignedDataVerifier(
            trustedRoots: [pki.root], bundleID: AppStoreTests.bundleID, appAppleID: nil,
            environment: .sandbox, validatesAtCurrentTime: true)
        expectVerificationError(.invalidCertificate) {
            _ = try atNow.verifyTransaction(try signer.signTransaction(transaction(signedDate: during)), now: now)
        }
    }

    @Test("A tampered payload or signature is a verification failure")
    func tampering() async throws {
        let pki = try await FakeApplePKI.shared()
        let verifier = AppStoreTests.verifier(pki)
        let jws = try pki.signer().signTransaction(transaction())
        let parts = jws.split(separator: ".").map(String.init)

        var forged = transaction()
        forged.productID = "com.example.lifetime"
        let forgedPayload = Base64URL.encode(forged.payload.serialized())
        expectVerificationError(.verificationFailure) {
            _ = try verifier.verifyTransaction([parts[0], forgedPayload, parts[2]].joined(separator: "."), now: now)
        }

        var signature = try Base64URL.decode(parts[2])
        signature[10] ^= 0x01
        expectVerificationError(.verificationFailure) {
            _ = try verifier.verifyTransaction([parts[0], parts[1], Base64URL.encode(signature)].joined(separator: "."), now: now)
        }
        // Signed by a key that is not the leaf's.
        let stranger = FakeAppStoreSigner(key: try SigningKey.generateES256(), chain: [pki.leaf, pki.intermediate, pki.root])
        expectVerificationError(.verificationFailure) {
            _ = try verifier.verifyTransaction(try stranger.signTransaction(transaction()), now: now)
        }
    }

    @Test("Payload checks: bundle id, environment, and the app Apple id in Production")
    func payloadChecks() async throws {
        let pki = try await FakeApplePKI.shared()
        let signer = pki.signer()
        expectVerificationError(.wrongAppIdentifier) {
            _ = try AppStoreTests.verifier(pki).verifyTransaction(try signer.signTransaction(transaction(bundleID: "com.other.app")), now: now)
        }
        expectVerificationError(.wrongEnvironment) {
            _ = try AppStoreTests.verifier(pki).verifyTransaction(try signer.signTransaction(transaction(environment: "Production")), now: now)
        }
        let production = AppStoreTests.verifier(pki, environment: .production, appAppleID: 1_234_567_890)
        let prodTransaction = transaction(environment: "Production")
        let good = FakeAppStoreNotification(
            notificationType: "DID_RENEW", signedDate: now, environment: "Production",
            appAppleID: 1_234_567_890, status: 1, transaction: prodTransaction)
        let notification = try production.verifyNotification(try signer.signNotification(good), now: now)
        #expect(notification.data?.transaction?.transactionID == "2000000000000042")
        var otherApp = good
        otherApp.appAppleID = 42
        expectVerificationError(.wrongAppIdentifier) { _ = try production.verifyNotification(try signer.signNotification(otherApp), now: now) }
        var noAppleID = good
        noAppleID.appAppleID = nil
        expectVerificationError(.wrongAppIdentifier) { _ = try production.verifyNotification(try signer.signNotification(noAppleID), now: now) }
        // Not configured: not compared.
        let unconfigured = AppStoreTests.verifier(pki, environment: .production)
        _ = try unconfigured.verifyNotification(try signer.signNotification(otherApp), now: now)
    }

    @Test("A notification's nested transaction and renewal info are verified too")
    func nestedVerification() async throws {
        let pki = try await FakeApplePKI.shared()
        let verifier = AppStoreTests.verifier(pki)
        let renewal = FakeAppStoreRenewalInfo(originalTransactionID: "2000000000000001", autoRenewStatus: 0, signedDate: now)
        let notification = FakeAppStoreNotification(
            notificationType: "DID_CHANGE_RENEWAL_STATUS", subtype: "AUTO_RENEW_DISABLED",
            signedDate: now, status: 1, transaction: transaction(), renewalInfo: renewal)
        let decoded = try verifier.verifyNotification(try pki.signer().signNotification(notification), now: now)
        #expect(decoded.data?.renewalInfo?.autoRenewStatus == 0)
        #expect(decoded.data?.transaction?.originalTransactionID == "2000000000000001")

        // Outer payload fine, nested transaction of another app.
        let nestedOtherApp = FakeAppStoreNotification(
            notificationType: "DID_RENEW", signedDate: now, status: 1,
            transaction: transaction(bundleID: "com.other.app"))
        expectVerificationError(.wrongAppIdentifier) {
            _ = try verifier.verifyNotification(try pki.signer().signNotification(nestedOtherApp), now: now)
        }
        // Outer payload signed properly, nested transaction signed with a chain lacking the OID.
        let nestedJWS = try pki.signer(.leafWithoutOID).signTransaction(transaction())
        let outer = FakeAppStoreNotification(notificationType: "DID_RENEW", signedDate: now, status: 1)
        let signedOuter = try pki.signer().sign(outer.payload(signedTransactionInfo: nestedJWS, signedRenewalInfo: nil))
        expectVerificationError(.invalidCertificate) { _ = try verifier.verifyNotification(signedOuter, now: now) }
        // Nested renewal info that is not a JWS.
        let badRenewal = try pki.signer().sign(outer.payload(signedTransactionInfo: nil, signedRenewalInfo: "garbage"))
        expectVerificationError(.invalidFormat) { _ = try verifier.verifyNotification(badRenewal, now: now) }
    }

    @Test("A payload member of the wrong type is invalid format")
    func wrongMemberType() async throws {
        let pki = try await FakeApplePKI.shared()
        let payload: JSONValue = ["bundleId": "com.example.app", "environment": "Sandbox", "expiresDate": "tomorrow"]
        expectVerificationError(.invalidFormat) {
            _ = try AppStoreTests.verifier(pki).verifyTransaction(try pki.signer().sign(payload), now: now)
        }
        let noType: JSONValue = ["data": ["bundleId": "com.example.app", "environment": "Sandbox"]]
        expectVerificationError(.invalidFormat) {
            _ = try AppStoreTests.verifier(pki).verifyNotification(try pki.signer().sign(noType), now: now)
        }
    }
}
