import Domain
import Foundation
import HTTPCore
import Integrations
import Testing
import TestSupport

@testable import Web

/// `store_product_id` on `POST /receipts` for the App Store and Stripe: a product that is not
/// the purchase's is `422` naming both, and nothing is recorded (Play's check is in
/// `StoresReceiptsTests.playBasePlan`).
@Suite("POST /receipts: store_product_id must be the purchase's")
struct StoresReceiptsProductTests {
    static func message(_ response: HTTPResponse) -> String? {
        (response.jsonObject?["error"] as? [String: Any])?["message"] as? String
    }

    @Test("APP_STORE original_transaction_id with another product's store_product_id is 422 naming both; its own records")
    func appStoreTransaction() async throws {
        let harness = try await StoresHarness()
        defer { Task { await harness.stop() } }
        let now = harness.clock.now
        try harness.apple.addTransaction(
            harness.transaction("2000000000000950", expires: now.addingTimeInterval(30 * 86400), signedAt: now), signer: harness.pki.signer(),
            environment: .sandbox)
        let body: [String: Any] = ["user_id": "partner-user-p", "original_transaction_id": "2000000000000950"]
        var wrong = body
        wrong["store_product_id"] = "com.example.yearly"
        let refused = try await harness.receipts(wrong, platform: "APP_STORE")
        #expect(refused.status == .unprocessableContent, "\(refused.text)")
        #expect(refused.errorCode == "unprocessable")
        #expect(
            Self.message(refused)
                == "store_product_id com.example.yearly is not the product of transaction 2000000000000950 (com.example.monthly); nothing was recorded."
        )
        #expect(try await harness.count("SELECT COUNT(*) FROM purchases") == 0)
        #expect(try await harness.count("SELECT COUNT(*) FROM accounts") == 0)

        var right = body
        right["store_product_id"] = "com.example.monthly"
        let recorded = try await harness.receipts(right, platform: "APP_STORE")
        #expect(recorded.status == .ok, "\(recorded.text)")
        #expect(StoresReceiptsTests.purchaseJSON(recorded)?["product_id"] as? String == "com.example.monthly")
    }

    @Test("APP_STORE receipt_data: store_product_id picks which of the receipt's purchases the answer is about; one it lacks is 422")
    func appStoreReceipt() async throws {
        let harness = try await StoresHarness()
        defer { Task { await harness.stop() } }
        let now = harness.clock.now
        let current = FakeAppStoreServer.ReceiptPurchase(
            productID: "com.example.monthly", transactionID: "3000000000000052", originalTransactionID: "3000000000000050",
            purchaseDate: now.addingTimeInterval(-5 * 86400), expiresDate: now.addingTimeInterval(25 * 86400),
            originalPurchaseDate: now.addingTimeInterval(-65 * 86400))
        let lifetime = FakeAppStoreServer.ReceiptPurchase(
            productID: "com.example.lifetime", transactionID: "3000000000000060", originalTransactionID: "3000000000000060",
            purchaseDate: now.addingTimeInterval(-400 * 86400), autoRenewStatus: nil)
        harness.apple.addReceipt(
            "MIIPRODUCT", environment: .sandbox,
            answer: .receipt(
                bundleID: StoresHarness.bundleID, environment: "Sandbox", latestReceiptInfo: [current], inApp: [lifetime, current],
                requestDate: now))

        let refused = try await harness.receipts(
            ["user_id": "restorer-p", "receipt_data": "MIIPRODUCT", "store_product_id": "com.example.yearly"], platform: "APP_STORE")
        #expect(refused.status == .unprocessableContent, "\(refused.text)")
        #expect(
            Self.message(refused)
                == "store_product_id com.example.yearly is not the product of the receipt (com.example.monthly, com.example.lifetime); nothing was recorded."
        )
        #expect(try await harness.count("SELECT COUNT(*) FROM purchases") == 0)

        let named = try await harness.receipts(
            ["user_id": "restorer-p", "receipt_data": "MIIPRODUCT", "store_product_id": "com.example.lifetime"], platform: "APP_STORE")
        #expect(named.status == .ok, "\(named.text)")
        let purchase = try #require(StoresReceiptsTests.purchaseJSON(named))
        #expect(purchase["product_id"] as? String == "com.example.lifetime", "the answer is about the product asked for, not the newest")
        let accountID = try #require(named.jsonObject?["account_id"] as? String)
        for reference in ["3000000000000050", "3000000000000060"] {
            #expect(try await harness.purchase(.appStore, reference)?.accountID == accountID, "the receipt's other purchase is linked too")
        }
    }

    @Test("STRIPE: store_product_id may be the price or its product; another is 422 naming both, nothing recorded")
    func stripeSubscription() async throws {
        let harness = try await StoresHarness()
        defer { Task { await harness.stop() } }
        let now = harness.clock.now
        harness.stripe.putSubscription(
            .init(id: "sub_partner_p", priceID: "price_monthly", created: now, currentPeriodEnd: now.addingTimeInterval(86400)))
        let body: [String: Any] = ["user_id": "u-sp", "stripe_object_type": "subscription", "stripe_object_id": "sub_partner_p"]
        var wrong = body
        wrong["store_product_id"] = "prod_yearly"
        let refused = try await harness.receipts(wrong, platform: "STRIPE")
        #expect(refused.status == .unprocessableContent, "\(refused.text)")
        #expect(
            Self.message(refused)
                == "store_product_id prod_yearly is not the product of sub_partner_p (price_monthly, \(FakeStripe.product(ofPrice: "price_monthly"))); nothing was recorded."
        )
        #expect(try await harness.count("SELECT COUNT(*) FROM purchases") == 0)
        #expect(try await harness.count("SELECT COUNT(*) FROM accounts") == 0)

        for named in ["price_monthly", FakeStripe.product(ofPrice: "price_monthly")] {
            var right = body
            right["store_product_id"] = named
            let recorded = try await harness.receipts(right, platform: "STRIPE")
            #expect(recorded.status == .ok, "\(named): \(recorded.text)")
            #expect(StoresReceiptsTests.purchaseJSON(recorded)?["product_id"] as? String == "price_monthly")
        }
        #expect(try await harness.count("SELECT COUNT(*) FROM purchases") == 1)
    }

    @Test("STRIPE checkout_session (one-time payment): store_product_id is checked against the line item's price and product")
    func stripeCheckoutSession() async throws {
        let harness = try await StoresHarness()
        defer { Task { await harness.stop() } }
        let client = StripeClient(secretKey: harness.stripe.secretKey, apiBase: harness.stripe.baseURL, http: URLSessionHTTPClient(service: "stripe"))
        let id = try await client.createCheckoutSession(
            CheckoutSessionRequest(
                mode: .payment, priceID: "price_monthly", successURL: "https://partner.example/ok", cancelURL: "https://partner.example/no"),
            idempotencyKey: "partner-pay-p"
        ).id
        _ = try harness.stripe.completeSession(id: id, email: "cs@example.com", paid: true)
        let body: [String: Any] = ["user_id": "u-csp", "stripe_object_type": "checkout_session", "stripe_object_id": id]
        var wrong = body
        wrong["store_product_id"] = "prod_yearly"
        let refused = try await harness.receipts(wrong, platform: "STRIPE")
        #expect(refused.status == .unprocessableContent, "\(refused.text)")
        #expect(Self.message(refused)?.hasPrefix("store_product_id prod_yearly is not the product of \(id) (price_monthly, prod_monthly)") == true)
        #expect(try await harness.count("SELECT COUNT(*) FROM purchases") == 0)
        var right = body
        right["store_product_id"] = "prod_monthly"
        #expect(try await harness.receipts(right, platform: "STRIPE").status == .ok)
    }
}
