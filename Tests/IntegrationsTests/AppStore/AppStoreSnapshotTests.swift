import Domain
import Foundation
import Integrations
import Testing
import TestSupport

@Suite("App Store snapshots: transactions and notification types")
struct AppStoreSnapshotTests {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)
    static let expires = now.addingTimeInterval(20 * 86400)
    static let graceEnd = now.addingTimeInterval(36 * 86400)

    /// One notification and the state it must produce.
    struct Case: Sendable, CustomTestStringConvertible {
        var type: String
        var subtype: String?
        var status: Int?
        var transaction = FakeAppStoreTransaction(expiresDate: AppStoreSnapshotTests.expires, signedDate: AppStoreSnapshotTests.now)
        var renewal: FakeAppStoreRenewalInfo?
        var expected: PurchaseStatus
        var expectedExpiry: Date? = AppStoreSnapshotTests.expires
        var testDescription: String { [type, subtype, status.map { "status \($0)" }].compactMap { $0 }.joined(separator: " ") }
    }

    static let cases: [Case] = {
        var freeTrial = FakeAppStoreTransaction(expiresDate: expires, signedDate: now, offerType: 1, offerDiscountType: "FREE_TRIAL")
        freeTrial.transactionID = "2000000000000009"
        var renewed = FakeAppStoreTransaction(expiresDate: expires.addingTimeInterval(30 * 86400), signedDate: now)
        renewed.transactionID = "2000000000000002"
        let refunded = FakeAppStoreTransaction(expiresDate: expires, revocationDate: now, revocationReason: 1, signedDate: now)
        let familyRevoked = FakeAppStoreTransaction(
            expiresDate: expires, revocationDate: now, revocationReason: 0,
            inAppOwnershipType: "FAMILY_SHARED", signedDate: now)
        let lapsed = FakeAppStoreTransaction(expiresDate: now.addingTimeInterval(-86400), signedDate: now)
        var upgraded = FakeAppStoreTransaction(productID: "com.example.yearly", expiresDate: expires, signedDate: now)
        upgraded.transactionID = "2000000000000003"
        let grace = FakeAppStoreRenewalInfo(gracePeriodExpiresDate: graceEnd, isInBillingRetryPeriod: true, signedDate: now)
        let off = FakeAppStoreRenewalInfo(autoRenewStatus: 0, signedDate: now)
        return [
            Case(type: "SUBSCRIBED", subtype: "INITIAL_BUY", status: 1, expected: .active),
            Case(type: "SUBSCRIBED", subtype: "INITIAL_BUY", status: 1, transaction: freeTrial, expected: .trialing),
            Case(type: "SUBSCRIBED", subtype: "RESUBSCRIBE", expected: .active),
            Case(type: "DID_RENEW", status: 1, transaction: renewed, expected: .active, expectedExpiry: expires.addingTimeInterval(30 * 86400)),
            Case(type: "DID_RENEW", subtype: "BILLING_RECOVERY", status: 1, expected: .active),
            Case(
                type: "DID_FAIL_TO_RENEW", subtype: "GRACE_PERIOD", status: 4, transaction: lapsed, renewal: grace,
                expected: .inGracePeriod, expectedExpiry: graceEnd),
            Case(
                type: "DID_FAIL_TO_RENEW", subtype: "GRACE_PERIOD", transaction: lapsed, renewal: grace,
                expected: .inGracePeriod, expectedExpiry: graceEnd),
            Case(type: "DID_FAIL_TO_RENEW", status: 3, transaction: lapsed, expected: .billingRetry, expectedExpiry: lapsed.expiresDate),
            Case(type: "DID_FAIL_TO_RENEW", transaction: lapsed, expected: .billingRetry, expectedExpiry: lapsed.expiresDate),
            Case(type: "GRACE_PERIOD_EXPIRED", status: 3, transaction: lapsed, expected: .billingRetry, expectedExpiry: lapsed.expiresDate),
            Case(type: "GRACE_PERIOD_EXPIRED", transaction: lapsed, expected: .billingRetry, expectedExpiry: lapsed.expiresDate),
            Case(type: "EXPIRED", subtype: "VOLUNTARY", status: 2, transaction: lapsed, expected: .expired, expectedExpiry: lapsed.expiresDate),
            Case(type: "EXPIRED", subtype: "BILLING_RETRY", transaction: lapsed, expected: .expired, expectedExpiry: lapsed.expiresDate),
            Case(type: "REFUND", status: 5, transaction: refunded, expected: .refunded),
            Case(type: "REFUND", status: 1, expected: .refunded),
            Case(type: "REVOKE", status: 5, transaction: familyRevoked, expected: .revoked),
            Case(type: "DID_CHANGE_RENEWAL_STATUS", subtype: "AUTO_RENEW_DISABLED", status: 1, renewal: off, expected: .canceled),
            Case(type: "DID_CHANGE_RENEWAL_STATUS", subtype: "AUTO_RENEW_DISABLED", status: 1, expected: .canceled),
            Case(
                type: "DID_CHANGE_RENEWAL_STATUS", subtype: "AUTO_RENEW_ENABLED", status: 1,
                renewal: FakeAppStoreRenewalInfo(autoRenewStatus: 1, signedDate: now), expected: .active),
            Case(type: "DID_CHANGE_RENEWAL_PREF", subtype: "UPGRADE", status: 1, transaction: upgraded, expected: .active),
            Case(type: "OFFER_REDEEMED", subtype: "UPGRADE", status: 1, expected: .active),
            Case(
                type: "RENEWAL_EXTENDED", status: 1, transaction: renewed, expected: .active, expectedExpiry: expires.addingTimeInterval(30 * 86400)),
            Case(type: "REFUND_REVERSED", status: 1, expected: .active)
        ]
    }()

    @Test("Each state-changing notification type gives its documented status", arguments: cases)
    func notificationTypes(_ testCase: Case) async throws {
        let pki = try await FakeApplePKI.shared()
        let signedDate = Self.now.addingTimeInterval(60)
        let notification = FakeAppStoreNotification(
            notificationType: testCase.type, subtype: testCase.subtype, signedDate: signedDate, bundleID: AppStoreTests.bundleID,
            status: testCase.status, transaction: testCase.transaction, renewalInfo: testCase.renewal)
        let verified = try AppStoreTests.verifier(pki).verifyNotification(try pki.signer().signNotification(notification), now: Self.now)
        let snapshot = try #require(try verified.snapshot(now: Self.now))
        #expect(snapshot.status == testCase.expected)
        #expect(snapshot.expiresAt == testCase.expectedExpiry)
        #expect(snapshot.platform == .appStore)
        #expect(snapshot.externalID == testCase.transaction.originalTransactionID)
        #expect(snapshot.productID == testCase.transaction.productID)
        #expect(snapshot.transactionID == testCase.transaction.transactionID)
        #expect(snapshot.environment == "Sandbox")
        #expect(snapshot.observedAt == signedDate)
    }

    @Test(
        "TEST and informational types are acknowledged with no state",
        arguments: [
            "TEST", "PRICE_INCREASE", "CONSUMPTION_REQUEST", "REFUND_DECLINED", "METADATA_UPDATE", "SOMETHING_NEW"
        ])
    func noState(_ type: String) async throws {
        let pki = try await FakeApplePKI.shared()
        let transaction = FakeAppStoreTransaction(expiresDate: Self.expires, signedDate: Self.now)
        let notification = FakeAppStoreNotification(
            notificationType: type, signedDate: Self.now, status: 1,
            transaction: type == "TEST" ? nil : transaction)
        let verified = try AppStoreTests.verifier(pki).verifyNotification(try pki.signer().signNotification(notification), now: Self.now)
        #expect(verified.notificationType == type)
        #expect(try verified.snapshot(now: Self.now) == nil)
        #expect(verified.isTest == (type == "TEST"))
    }

    @Test("Out of order: each snapshot carries its notification's signedDate, so the older one can be ignored")
    func outOfOrder() async throws {
        let pki = try await FakeApplePKI.shared()
        let verifier = AppStoreTests.verifier(pki)
        let renewedAt = Self.now.addingTimeInterval(3600)
        var renewal = FakeAppStoreTransaction(expiresDate: Self.expires.addingTimeInterval(30 * 86400), signedDate: renewedAt)
        renewal.transactionID = "2000000000000002"
        let older = FakeAppStoreNotification(
            notificationType: "EXPIRED", subtype: "BILLING_RETRY", signedDate: Self.now, status: 2,
            transaction: FakeAppStoreTransaction(expiresDate: Self.now.addingTimeInterval(-60), signedDate: Self.now))
        let newer = FakeAppStoreNotification(
            notificationType: "DID_RENEW", subtype: "BILLING_RECOVERY", signedDate: renewedAt,
            status: 1, transaction: renewal)
        // Delivered newest first.
        let first = try #require(try verifier.verifyNotification(try pki.signer().signNotification(newer), now: renewedAt).snapshot(now: renewedAt))
        let second = try #require(try verifier.verifyNotification(try pki.signer().signNotification(older), now: renewedAt).snapshot(now: renewedAt))
        #expect(first.externalID == second.externalID)
        #expect(first.status == .active)
        #expect(second.status == .expired)
        #expect(second.observedAt < first.observedAt)
        #expect(first.observedAt == renewedAt)
    }

    @Test("Transactions without a notification: consumables never expire, subscriptions by date and renewal info")
    func transactionSnapshots() throws {
        let now = Self.now
        func snapshot(_ transaction: AppStoreTransaction, _ renewal: AppStoreRenewalInfo? = nil) throws -> PurchaseSnapshot {
            try transaction.snapshot(renewalInfo: renewal, now: now)
        }
        var base = AppStoreTransaction(
            transactionID: "11", originalTransactionID: "10", bundleID: "b", productID: "p",
            type: "Consumable", environment: "Production",
            appAccountToken: "5E5A8F9C-1B2D-4C3E-9F00-ABCDEF012345", signedDate: now.addingTimeInterval(-5))
        let consumable = try snapshot(base)
        #expect(consumable.status == .active)
        #expect(consumable.expiresAt == nil)
        #expect(consumable.ownerHint == "5e5a8f9c-1b2d-4c3e-9f00-abcdef012345")
        #expect(consumable.observedAt == now.addingTimeInterval(-5))
        #expect(consumable.externalID == "10")
        #expect(consumable.transactionID == "11")
        #expect(consumable.isEntitled(at: now))

        base.type = "Auto-Renewable Subscription"
        base.expiresDate = now.addingTimeInterval(86400)
        #expect(try snapshot(base).status == .active)
        #expect(try snapshot(base, AppStoreRenewalInfo(autoRenewStatus: 0)).status == .canceled)
        #expect(try snapshot(base, AppStoreRenewalInfo(autoRenewStatus: 0)).isEntitled(at: now))
        base.expiresDate = now.addingTimeInterval(-86400)
        #expect(try snapshot(base).status == .expired)
        #expect(try !snapshot(base).isEntitled(at: now))
        let inGrace = try snapshot(base, AppStoreRenewalInfo(gracePeriodExpiresDate: now.addingTimeInterval(86400), isInBillingRetryPeriod: true))
        #expect(inGrace.status == .inGracePeriod)
        #expect(inGrace.expiresAt == now.addingTimeInterval(86400))
        #expect(try snapshot(base, AppStoreRenewalInfo(isInBillingRetryPeriod: true)).status == .billingRetry)
        base.revocationDate = now
        #expect(try snapshot(base).status == .revoked)
        base.revocationReason = 1
        #expect(try snapshot(base).status == .refunded)
        #expect(try base.snapshot(subscriptionStatus: 1, now: now).status == .refunded)
        base.revocationDate = nil
        #expect(try base.snapshot(subscriptionStatus: 5, now: now).status == .revoked)
        #expect(try base.snapshot(subscriptionStatus: 3, now: now).status == .billingRetry)

        // Apple's mock transaction has no ids: it verifies but cannot become a purchase.
        let idless = AppStoreTransaction(bundleID: "com.example", environment: "Sandbox")
        #expect { _ = try idless.snapshot(now: now) } throws: { ($0 as? AppStoreError)?.verificationError != nil }
    }
}
