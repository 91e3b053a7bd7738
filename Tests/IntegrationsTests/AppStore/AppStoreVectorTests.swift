import Crypto
import Foundation
import Integrations
import Testing
import TestSupport

@Suite("App Store signed data: Apple's vectors")
struct AppStoreVectorTests {
    static func mockVerifier(
        _ environment: AppStoreEnvironment = .sandbox, appAppleID: Int? = nil,
        bundleID: String = "com.example"
    ) throws -> AppStoreSignedDataVerifier {
        AppStoreSignedDataVerifier(
            trustedRoots: [try AppStoreTests.certificate("apple/certs/testCA.der")],
            bundleID: bundleID, appAppleID: appAppleID, environment: environment)
    }

    static func mock(_ name: String) throws -> String { try SharedVectors.text("apple/mock_signed_data/\(name)") }

    @Test("Apple's mock transaction, renewal info and TEST notification verify for (Sandbox, com.example)")
    func mockSignedDataVerifies() throws {
        let verifier = try Self.mockVerifier()
        let transaction = try verifier.verifyTransaction(Self.mock("transactionInfo"))
        #expect(transaction.bundleID == "com.example")
        #expect(transaction.environment == "Sandbox")
        #expect(transaction.signedDate == AppStoreTests.date(1_672_956_154))
        let renewal = try verifier.verifyRenewalInfo(Self.mock("renewalInfo"))
        #expect(renewal.environment == "Sandbox")
        let notification = try verifier.verifyNotification(Self.mock("testNotification"))
        #expect(notification.notificationType == "TEST")
        #expect(notification.isTest)
        #expect(notification.notificationUUID == "9ad56bd2-0bc6-42e0-af24-fd996d87a1e6")
        #expect(notification.data?.appAppleID == 1234)
        #expect(notification.signedDate == AppStoreTests.date(1_681_314_324))
        #expect(try notification.snapshot() == nil)
    }

    @Test("The TEST notification is the wrong environment for Production, the wrong app for Production with app id 1235")
    func mockNotificationPayloadChecks() throws {
        let compact = try Self.mock("testNotification")
        expectVerificationError(.wrongEnvironment) { _ = try Self.mockVerifier(.production).verifyNotification(compact) }
        expectVerificationError(.wrongEnvironment) { _ = try Self.mockVerifier(.production, appAppleID: 1234).verifyNotification(compact) }
        expectVerificationError(.wrongAppIdentifier) { _ = try Self.mockVerifier(.production, appAppleID: 1235).verifyNotification(compact) }
        // In Sandbox the app Apple id is not compared (Apple omits it there).
        _ = try Self.mockVerifier(.sandbox, appAppleID: 1235).verifyNotification(compact)
        expectVerificationError(.wrongAppIdentifier) {
            _ = try Self.mockVerifier(bundleID: "com.example.other").verifyNotification(compact)
        }
    }

    @Test("Mock transaction checks: another bundle is the wrong app, another environment the wrong environment")
    func mockTransactionPayloadChecks() throws {
        let compact = try Self.mock("transactionInfo")
        expectVerificationError(.wrongAppIdentifier) { _ = try Self.mockVerifier(bundleID: "com.example.other").verifyTransaction(compact) }
        expectVerificationError(.wrongEnvironment) { _ = try Self.mockVerifier(.production).verifyTransaction(compact) }
        expectVerificationError(.wrongEnvironment) { _ = try Self.mockVerifier(.production).verifyRenewalInfo(Self.mock("renewalInfo")) }
    }

    @Test("wrongBundleId is the wrong app identifier; missingX5CHeaderClaim and legacyTransaction are invalid format")
    func mockFailures() throws {
        let verifier = try Self.mockVerifier()
        expectVerificationError(.wrongAppIdentifier) { _ = try verifier.verifyNotification(Self.mock("wrongBundleId")) }
        expectVerificationError(.invalidFormat) { _ = try verifier.verifyNotification(Self.mock("missingX5CHeaderClaim")) }
        expectVerificationError(.invalidFormat) { _ = try verifier.verifyTransaction(Self.mock("legacyTransaction")) }
        for garbage in ["", "a.b", "a.b.c", "....", String(repeating: "A", count: 100_000)] {
            expectVerificationError(.invalidFormat) { _ = try verifier.verifyTransaction(garbage) }
        }
    }

    @Test("Mock data does not chain to the real Apple root")
    func mockDataIsNotApple() throws {
        let verifier = AppStoreSignedDataVerifier(
            trustedRoots: [try AppleRootCertificates.appleRootCAG3], bundleID: "com.example",
            appAppleID: nil, environment: .sandbox)
        expectVerificationError(.invalidCertificate) { _ = try verifier.verifyTransaction(Self.mock("transactionInfo")) }
    }

    @Test("Real Apple-signed sandbox data verifies at its signedDate against the embedded G3, not at the current time")
    func realAppleSignedData() throws {
        let root = try AppleRootCertificates.appleRootCAG3
        let transactionJWS = try SharedVectors.text("apple/real_apple_signed/sandbox_consumable_transaction.jws")
        let notificationJWS = try SharedVectors.text("apple/real_apple_signed/sandbox_test_notification.jws")

        let transactions = AppStoreSignedDataVerifier(trustedRoots: [root], bundleID: "com.goodheartapp", appAppleID: nil, environment: .sandbox)
        let transaction = try transactions.verifyTransaction(transactionJWS)
        #expect(transaction.transactionID == "2000000847061981")
        #expect(transaction.type == "Consumable")
        #expect(transaction.purchaseDate == AppStoreTests.date(1_738_645_560))
        let snapshot = try transaction.snapshot(now: AppStoreTests.date(1_800_000_000))
        #expect(snapshot.status == .active)
        #expect(snapshot.expiresAt == nil)
        #expect(snapshot.externalID == "2000000847061981")
        #expect(snapshot.productID == "gh_super_good_ticket_1")
        #expect(snapshot.environment == "Sandbox")
        #expect(snapshot.observedAt == AppStoreTests.date(1_739_161_772.561))

        let notifications = AppStoreSignedDataVerifier(
            trustedRoots: [root], bundleID: "com.loki-project.loki-messenger",
            appAppleID: nil, environment: .sandbox)
        #expect(try notifications.verifyNotification(notificationJWS).isTest)

        let atNow = AppStoreSignedDataVerifier(
            trustedRoots: [root], bundleID: "com.goodheartapp", appAppleID: nil,
            environment: .sandbox, validatesAtCurrentTime: true)
        expectVerificationError(.invalidCertificate) { _ = try atNow.verifyTransaction(transactionJWS, now: Date()) }
        // The same check at a time inside the leaf's validity passes.
        _ = try atNow.verifyTransaction(transactionJWS, now: AppStoreTests.date(1_739_161_772))
        // Apple's real data against Apple's test root: untrusted.
        expectVerificationError(.invalidCertificate) {
            _ = try Self.mockVerifier(bundleID: "com.goodheartapp").verifyTransaction(transactionJWS)
        }
    }

    @Test("Xcode data: accepted unverified only when configured for Xcode (as Apple's library), refused otherwise")
    func xcodeSignedData() throws {
        let bundle = "com.example.naturelab.backyardbirds.example"
        let transactionJWS = try SharedVectors.text("apple/xcode/xcode-signed-transaction")
        let renewalJWS = try SharedVectors.text("apple/xcode/xcode-signed-renewal-info")
        let xcode = AppStoreSignedDataVerifier(
            trustedRoots: [try AppleRootCertificates.appleRootCAG3], bundleID: bundle,
            appAppleID: nil, environment: .xcode)
        let transaction = try xcode.verifyTransaction(transactionJWS)
        #expect(transaction.environment == "Xcode")
        #expect(transaction.productID == "pass.premium")
        #expect(transaction.offerType == 1)
        // Fractional milliseconds: 1697679936049.7297 ms.
        let purchase = try #require(transaction.purchaseDate).timeIntervalSince1970
        #expect(abs(purchase - 1_697_679_936.0497297) < 0.000_01)
        let expires = try #require(transaction.expiresDate).timeIntervalSince1970
        #expect(abs(expires - 1_700_358_336.0497297) < 0.000_01)
        let renewal = try xcode.verifyRenewalInfo(renewalJWS)
        #expect(renewal.autoRenewStatus == 1)
        #expect(renewal.autoRenewProductID == "pass.premium")
        #expect(abs(try #require(renewal.signedDate).timeIntervalSince1970 - 1_697_679_936.7110747) < 0.000_01)
        let snapshot = try transaction.snapshot(renewalInfo: renewal, now: AppStoreTests.date(1_698_000_000))
        #expect(snapshot.status == .active)
        #expect(snapshot.environment == "Xcode")

        // The payload checks still apply in Xcode mode.
        let otherApp = AppStoreSignedDataVerifier(trustedRoots: [], bundleID: "com.example", appAppleID: nil, environment: .xcode)
        expectVerificationError(.wrongAppIdentifier) { _ = try otherApp.verifyTransaction(transactionJWS) }
        let mockUnderXcode = AppStoreSignedDataVerifier(trustedRoots: [], bundleID: "com.example", appAppleID: nil, environment: .xcode)
        expectVerificationError(.wrongEnvironment) { _ = try mockUnderXcode.verifyTransaction(Self.mock("transactionInfo")) }
        expectVerificationError(.invalidFormat) { _ = try xcode.verifyTransaction("not a jws") }

        // Configured for Sandbox or Production, the one-certificate x5c is refused.
        for environment in [AppStoreEnvironment.sandbox, .production] {
            let strict = AppStoreSignedDataVerifier(
                trustedRoots: [try AppleRootCertificates.appleRootCAG3], bundleID: bundle,
                appAppleID: nil, environment: environment)
            expectVerificationError(.invalidFormat) { _ = try strict.verifyTransaction(transactionJWS) }
            expectVerificationError(.invalidFormat) { _ = try strict.verifyRenewalInfo(renewalJWS) }
        }
    }

    @Test("The embedded Apple Root CA - G3 has the published fingerprint and equals Apple's file")
    func embeddedRoot() throws {
        let root = try AppleRootCertificates.appleRootCAG3
        #expect(Hex.encode(try SHA256.hash(root.der)) == "63343abfb89a6a03ebb57e9b3f5fa7be7c4f5c756f3017b3a8c488c3653e9179")
        #expect(AppleRootCertificates.appleRootCAG3SHA256 == Hex.encode(try SHA256.hash(root.der)))
        #expect(root.der == (try SharedVectors.bytes("apple/testfile_certs/real_apple_root.der")))
        #expect(try root.subject().contains("CN=Apple Root CA - G3"))
    }

    @Test("load(paths:) reads DER and PEM files; a missing default AppleRootCA-G3.cer means the embedded root")
    func loadRoots() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("apple-roots-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let pem = try SharedVectors.text("apple/certs/testCA.pem") + "\n" + SharedVectors.text("apple/testfile_certs/real_apple_root.pem")
        let pemPath = directory.appendingPathComponent("two.pem").path
        try pem.write(toFile: pemPath, atomically: true, encoding: .utf8)
        let derPath = SharedVectors.url("apple/certs/testCA.der").path
        let missingDefault = directory.appendingPathComponent("certs/AppleRootCA-G3.cer").path

        let roots = try AppleRootCertificates.load(paths: [derPath, pemPath, missingDefault])
        #expect(roots.count == 4)
        let g3 = try AppleRootCertificates.appleRootCAG3
        #expect(roots[0].der == (try SharedVectors.bytes("apple/certs/testCA.der")))
        #expect(roots[1].der == roots[0].der)
        #expect(roots[2].der == g3.der)
        #expect(roots[3].der == g3.der)

        // An existing AppleRootCA-G3.cer is read, not replaced.
        let present = directory.appendingPathComponent("AppleRootCA-G3.cer")
        try Data(try SharedVectors.bytes("apple/certs/testCA.der")).write(to: present)
        #expect(try AppleRootCertificates.load(paths: [present.path])[0].der == roots[0].der)

        let garbage = directory.appendingPathComponent("garbage.cer")
        try Data("not a certificate".utf8).write(to: garbage)
        #expect { _ = try AppleRootCertificates.load(paths: [garbage.path]) } throws: { ($0 as? AppStoreError)?.configurationError != nil }
        #expect { _ = try AppleRootCertificates.load(paths: [directory.appendingPathComponent("other.cer").path]) } throws: {
            ($0 as? AppStoreError)?.configurationError != nil
        }
        #expect { _ = try AppleRootCertificates.load(paths: []) } throws: { ($0 as? AppStoreError)?.configurationError != nil }
    }
}
