import Domain
import Foundation
import Integrations
import Testing
import TestSupport

@Suite("Google Play purchase decoding")
struct GooglePlayPurchaseDecodingTests {
    @Test("The subscriptionsv2 example decodes with every field the snapshot needs")
    func subscriptionExample() throws {
        let subscription = try GooglePlaySubscription(json: PlayVectors.bytes("example_subscriptionsv2_get.json"))
        #expect(subscription.state == .active)
        #expect(subscription.acknowledgementState == .pending)
        #expect(subscription.needsAcknowledgement)
        #expect(subscription.obfuscatedExternalAccountID == "user-7e3fb20b")
        #expect(subscription.isTestPurchase)
        #expect(subscription.regionCode == "US")
        #expect(subscription.startTime == Date(timeIntervalSince1970: 1_700_000_000.123))
        let item = try #require(subscription.lineItems.first)
        #expect(item.productID == "pro_monthly")
        #expect(item.autoRenewEnabled == true)
        #expect(item.latestSuccessfulOrderID == "GPA.1234-5678-9012-34567")
        let observed = Date(timeIntervalSince1970: 1_700_000_100)
        let snapshot = subscription.snapshot(purchaseToken: "tok", observedAt: observed)
        #expect(snapshot.status == .active)
        #expect(snapshot.productID == "pro_monthly")
        #expect(snapshot.expiresAt == Date(timeIntervalSince1970: 1_702_592_000.123))
        #expect(snapshot.ownerHint == "user-7e3fb20b")
        #expect(snapshot.environment == "test")
        #expect(snapshot.transactionID == "GPA.1234-5678-9012-34567")
        #expect(snapshot.isEntitled(at: observed))
    }

    @Test("The products example decodes")
    func productExample() throws {
        let purchase = try GooglePlayProductPurchase(json: PlayVectors.bytes("example_products_get.json"))
        #expect(purchase.purchaseState == .purchased)
        #expect(purchase.acknowledgementState == 0)
        #expect(purchase.needsAcknowledgement)
        #expect(purchase.consumptionState == 0)
        #expect(purchase.orderID == "GPA.3333-4444-5555-66666")
        #expect(purchase.purchaseTimeMillis == "1700000000000")
        #expect(purchase.purchaseTime == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(purchase.productID == "coins_100")
        #expect(purchase.obfuscatedExternalAccountID == "user-7e3fb20b")
        let snapshot = purchase.snapshot(productID: "coins_100", purchaseToken: "otp-token-123", observedAt: Date())
        #expect(snapshot.status == .active)
        #expect(snapshot.expiresAt == nil)
        #expect(snapshot.environment == "test")
        #expect(snapshot.externalID == "otp-token-123")
    }

    @Test("The latest of several line items wins; offsets and nanoseconds are read")
    func lineItemsAndTimestamps() throws {
        let json = #"""
            {"subscriptionState":"SUBSCRIPTION_STATE_IN_GRACE_PERIOD","acknowledgementState":"ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED",
             "lineItems":[{"productId":"basic","expiryTime":"2024-02-29T23:00:00.5+02:00"},
                          {"productId":"addon","expiryTime":"2024-03-01T00:00:00.123456789Z"}],
             "startTime":"2024-01-31T10:00:00Z","latestOrderId":"GPA.1"}
            """#
        let subscription = try GooglePlaySubscription(json: Array(json.utf8))
        #expect(subscription.lineItems[0].expiryTime == Date(timeIntervalSince1970: 1_709_240_400.5))
        let latest = try #require(subscription.lineItems[1].expiryTime)
        #expect(abs(latest.timeIntervalSince1970 - 1_709_251_200.123456789) < 1e-6)
        #expect(subscription.latestLineItem?.productID == "addon")
        #expect(!subscription.needsAcknowledgement)
        #expect(subscription.snapshot(purchaseToken: "t", observedAt: Date()).transactionID == "GPA.1")
    }

    @Test(
        "Unreadable answers are invalid-response upstream errors",
        arguments: [
            "not json", "[]", #"{"lineItems":[{"expiryTime":"2024-01-01T00:00:00Z"}]}"#,
            #"{"lineItems":[{"productId":"p","expiryTime":"2024-02-30T00:00:00Z"}]}"#,
            #"{"lineItems":[{"productId":"p","expiryTime":"yesterday"}]}"#
        ])
    func unreadable(json: String) async {
        let error = await expectUpstream { _ = try GooglePlaySubscription(json: Array(json.utf8)) }
        #expect(error?.kind == .invalidResponse)
        #expect(error?.retryable == false)
    }

    @Test("An unknown subscription state grants nothing")
    func unknownState() throws {
        let subscription = try GooglePlaySubscription(json: Array(#"{"subscriptionState":"SUBSCRIPTION_STATE_FUTURE"}"#.utf8))
        #expect(subscription.state == .unspecified("SUBSCRIPTION_STATE_FUTURE"))
        #expect(subscription.snapshot(purchaseToken: "t", observedAt: Date()).isEntitled(at: Date()) == false)
    }
}
