import Domain
import Foundation
import HTTPCore
import Testing
import TestSupport

@testable import Web

/// What a subscription does next, as each store says it: a pending downgrade, no renewal, an
/// upgrade that switches at once, the offer it was bought with, and the configured length of an
/// App Store non-renewing subscription.
@Suite("Renewal plans, offers and non-renewing subscriptions")
struct RenewalPlanTests {
    static let original = "2000000000000555"

    private static func claimApple(_ harness: StoresHarness, _ transaction: FakeAppStoreTransaction) async throws -> HTTPResponse {
        let jws = try harness.pki.signer(.valid).signTransaction(transaction)
        let body = try JSONSerialization.data(withJSONObject: ["subscription_transaction_jws": jws])
        return await harness.app.send(
            .post, "/api/v1/iap/apple", headers: ["X-Api-Key": StoresHarness.apiKey, "Content-Type": "application/json"], bytes: Array(body))
    }

    private static func purchase(_ response: HTTPResponse) -> [String: Any]? {
        response.jsonObject?["purchase"] as? [String: Any]
    }

    @Test("Apple: a downgrade waits for the renewal (renews_to_product_id), an upgrade switches at once, auto-renew off is will_renew false")
    func appleRenewalPlan() async throws {
        let harness = try await StoresHarness(extra: [
            "entitlements": ["premium": ["com.example.monthly", "com.example.yearly", "com.example.basic"]]
        ])
        defer { Task { await harness.stop() } }
        let (accountID, _) = try await harness.signedInAccount()
        let hint = try await harness.obfuscatedID(accountID)
        let t0 = harness.clock.now
        let end = t0.addingTimeInterval(30 * 86400)
        var bought = harness.transaction(Self.original, product: "com.example.monthly", expires: end, signedAt: t0, appAccountToken: hint)
        bought.offerType = 1
        bought.offerDiscountType = "PAY_AS_YOU_GO"
        let subscribed = try await harness.appleNotification(
            FakeAppStoreNotification(
                notificationType: "SUBSCRIBED", subtype: "INITIAL_BUY", signedDate: t0, transaction: bought,
                renewalInfo: FakeAppStoreRenewalInfo(originalTransactionID: Self.original, productID: "com.example.monthly", signedDate: t0)))
        #expect(subscribed.status == .ok)
        var stored = try #require(try await harness.purchase(.appStore, Self.original))
        #expect(stored.willRenew == true)
        #expect(stored.renewsToProductID == nil)
        #expect(stored.offerType == "introductory")

        // DID_CHANGE_RENEWAL_PREF / DOWNGRADE: the product stays until the period ends.
        let t1 = t0.addingTimeInterval(3600)
        let downgrade = try await harness.appleNotification(
            FakeAppStoreNotification(
                notificationType: "DID_CHANGE_RENEWAL_PREF", subtype: "DOWNGRADE", signedDate: t1,
                transaction: harness.transaction(Self.original, product: "com.example.monthly", expires: end, signedAt: t1),
                renewalInfo: FakeAppStoreRenewalInfo(
                    originalTransactionID: Self.original, productID: "com.example.monthly", autoRenewProductID: "com.example.basic", signedDate: t1)))
        #expect(downgrade.status == .ok)
        stored = try #require(try await harness.purchase(.appStore, Self.original))
        #expect(stored.productID == "com.example.monthly")
        #expect(stored.willRenew == true)
        #expect(stored.renewsToProductID == "com.example.basic")
        let token = try await harness.accessToken(for: accountID)
        let premium = try #require(StoresHarness.entitlement("premium", in: await harness.entitlements(bearer: token)))
        #expect(premium["will_renew"] as? Bool == true)
        #expect(premium["renews_to_product_id"] as? String == "com.example.basic")

        // An upgrade (DID_CHANGE_RENEWAL_PREF / UPGRADE) comes with a new transaction for the new product: at once.
        let t2 = t1.addingTimeInterval(3600)
        let upgraded = try await harness.appleNotification(
            FakeAppStoreNotification(
                notificationType: "DID_CHANGE_RENEWAL_PREF", subtype: "UPGRADE", signedDate: t2,
                transaction: harness.transaction(
                    Self.original, transactionID: "2000000000000556", product: "com.example.yearly", expires: t2.addingTimeInterval(365 * 86400),
                    signedAt: t2),
                renewalInfo: FakeAppStoreRenewalInfo(originalTransactionID: Self.original, productID: "com.example.yearly", signedDate: t2)))
        #expect(upgraded.status == .ok)
        stored = try #require(try await harness.purchase(.appStore, Self.original))
        #expect(stored.productID == "com.example.yearly")
        #expect(stored.renewsToProductID == nil)
        #expect(stored.willRenew == true)

        // DID_CHANGE_RENEWAL_STATUS / AUTO_RENEW_DISABLED: paid until the end, will not renew.
        let t3 = t2.addingTimeInterval(3600)
        let disabled = try await harness.appleNotification(
            FakeAppStoreNotification(
                notificationType: "DID_CHANGE_RENEWAL_STATUS", subtype: "AUTO_RENEW_DISABLED", signedDate: t3,
                transaction: harness.transaction(
                    Self.original, transactionID: "2000000000000556", product: "com.example.yearly", expires: t2.addingTimeInterval(365 * 86400),
                    signedAt: t3),
                renewalInfo: FakeAppStoreRenewalInfo(
                    originalTransactionID: Self.original, productID: "com.example.yearly", autoRenewStatus: 0, signedDate: t3)))
        #expect(disabled.status == .ok)
        stored = try #require(try await harness.purchase(.appStore, Self.original))
        #expect(stored.willRenew == false)
        #expect(stored.status == .canceled)
    }

    @Test("Play: a deferred downgrade is renews_to_product_id, the offer id is kept; the claim answer shows both")
    func playRenewalPlan() async throws {
        let harness = try await StoresHarness(extra: [
            "entitlements": ["premium": ["pro_monthly", "pro_basic"]], "products": ["pro_monthly", "pro_basic"]
        ])
        defer { Task { await harness.stop() } }
        harness.google.setSubscription(
            token: "tok-downgrade", state: .active, productID: "pro_monthly", expiry: harness.clock.now.addingTimeInterval(30 * 86400),
            offerID: "intro-50", deferredReplacementProductID: "pro_basic")
        let body = try JSONSerialization.data(withJSONObject: ["purchase_token": "tok-downgrade", "sku": "pro_monthly"])
        let response = await harness.app.send(
            .post, "/api/v1/iap/google", headers: ["X-Api-Key": StoresHarness.apiKey, "Content-Type": "application/json"], bytes: Array(body))
        #expect(response.status == .ok, "\(response.text)")
        let purchase = try #require(Self.purchase(response))
        #expect(purchase["will_renew"] as? Bool == true)
        #expect(purchase["renews_to_product_id"] as? String == "pro_basic")
        #expect(purchase["offer_type"] as? String == "intro-50")
        let stored = try #require(try await harness.purchase(.playStore, "tok-downgrade"))
        #expect(stored.renewsToProductID == "pro_basic")
    }

    @Test("Stripe: cancel_at_period_end is will_renew false in the redeem result and the entitlements")
    func stripeCancelAtPeriodEnd() async throws {
        let harness = try CheckoutHarness()
        let id = try await harness.startCheckout("plan=monthly&app_user_id=u-r&email=r%40example.com")
        try harness.pay(id, email: "r@example.com")
        let code = try #require(CheckoutHarness.code(in: await harness.successPage(id)))
        let first = await harness.redeem(code, appUserID: "u-r")
        let info = try #require(first.jsonObject?["redemption_info"] as? [String: Any])
        #expect((info["purchase"] as? [String: Any])?["will_renew"] as? Bool == true)
        let subscriptionID = try #require(harness.stripe.session(id: id)?.subscriptionID)
        _ = try harness.stripe.updateSubscription(id: subscriptionID, cancelAtPeriodEnd: true)
        let updated = await harness.webhook(
            "customer.subscription.updated", object: try #require(harness.stripe.subscriptionObject(id: subscriptionID)))
        #expect(updated.status == .ok)
        let entitlements = await harness.app.send(.get, "/api/v1/entitlements?app_user_id=u-r", headers: ["X-Api-Key": CheckoutHarness.apiKey])
        let premium = try #require((entitlements.jsonObject?["entitlements"] as? [[String: Any]])?.first)
        #expect(premium["active"] as? Bool == true, "paid until the period ends")
        #expect(premium["will_renew"] as? Bool == false)
    }

    @Test("Apple non-renewing subscriptions last products_duration_days from the purchase; without one they are refused, naming the key")
    func nonRenewingDuration() async throws {
        let harness = try await StoresHarness(extra: [
            "entitlements": ["premium": ["com.example.season", "com.example.pass"]],
            "products_duration_days": ["com.example.season": 90]
        ])
        defer { Task { await harness.stop() } }
        let now = harness.clock.now
        func nonRenewing(_ id: String, product: String, boughtAt: Date) -> FakeAppStoreTransaction {
            var transaction = harness.transaction(id, product: product, expires: nil, signedAt: now)
            transaction.type = "Non-Renewing Subscription"
            transaction.purchaseDate = boughtAt
            return transaction
        }
        let season = try await Self.claimApple(
            harness, nonRenewing("2000000000000901", product: "com.example.season", boughtAt: now.addingTimeInterval(-10 * 86400)))
        #expect(season.status == .ok, "\(season.text)")
        let purchase = try #require(Self.purchase(season))
        #expect(purchase["expires_at"] as? String == Timestamp.rfc3339(now.addingTimeInterval(80 * 86400)))
        #expect(purchase["status"] as? String == "active")

        let old = try await Self.claimApple(
            harness, nonRenewing("2000000000000902", product: "com.example.season", boughtAt: now.addingTimeInterval(-100 * 86400)))
        #expect(old.status == .ok)
        #expect(Self.purchase(old)?["status"] as? String == "expired")

        let unconfigured = try await Self.claimApple(harness, nonRenewing("2000000000000903", product: "com.example.pass", boughtAt: now))
        #expect(unconfigured.status == .serviceUnavailable)
        #expect(unconfigured.errorCode == "not_configured")
        #expect(unconfigured.text.contains("products_duration_days.com.example.pass"))
        #expect(try await harness.purchase(.appStore, "2000000000000903") == nil)
    }
}
