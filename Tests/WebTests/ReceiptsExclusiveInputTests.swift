import Foundation
import HTTPCore
import Testing
import TestSupport

/// Purchasely's `POST /receipts` (issue 43, item 8): `original_transaction_id` and `receipt_data`
/// are exclusive in Purchasely's docs, and a product the caller names that is not the purchase's
/// answers one code on every platform: `422 unprocessable` (API.md's word for a `stripe_price_id`
/// that is not the purchase's price; `invalid_receipt` stays for a purchase the store refuses).
@Suite("POST /receipts: exclusive inputs and one mismatch code")
struct ReceiptsExclusiveInputTests {
    @Test("original_transaction_id with receipt_data is 400 naming both, and the store is not asked")
    func bothReferences() async throws {
        let harness = try await StoresHarness()
        defer { Task { await harness.stop() } }
        let now = harness.clock.now
        try harness.apple.addTransaction(
            harness.transaction("2000000000000931", expires: now.addingTimeInterval(86400), signedAt: now), signer: harness.pki.signer(),
            environment: .sandbox)
        harness.apple.addReceipt(
            "MIIBOTH", environment: .sandbox,
            answer: .valid(
                bundleID: StoresHarness.bundleID, environment: "Sandbox",
                purchases: [.init(originalTransactionID: "2000000000000931", expiresDate: now.addingTimeInterval(86400))], requestDate: now))
        let response = try await harness.receipts(
            [
                "user_id": "ply-user-1", "store_product_id": "com.example.monthly", "original_transaction_id": "2000000000000931",
                "receipt_data": "MIIBOTH"
            ],
            platform: "APP_STORE")
        #expect(response.status == .badRequest, "\(response.text)")
        #expect(response.errorCode == "bad_request")
        let message = try #require((response.jsonObject?["error"] as? [String: Any])?["message"] as? String)
        #expect(message.contains("original_transaction_id") && message.contains("receipt_data"), "\(message)")
        #expect(harness.apple.receiptRequests.isEmpty)
        #expect(try await harness.count("SELECT COUNT(*) FROM purchases") == 0)
        #expect(try await harness.count("SELECT COUNT(*) FROM accounts") == 0)

        // Each one alone still records.
        let alone = try await harness.receipts(
            ["user_id": "ply-user-1", "store_product_id": "com.example.monthly", "original_transaction_id": "2000000000000931"],
            platform: "APP_STORE")
        #expect(alone.status == .ok, "\(alone.text)")
    }

    @Test("A store_product_id or stripe_price_id that is not the purchase's is 422 unprocessable on PLAY_STORE, APP_STORE and STRIPE")
    func oneMismatchCode() async throws {
        let harness = try await StoresHarness()
        defer { Task { await harness.stop() } }
        let now = harness.clock.now
        harness.google.setSubscription(token: "tok-mm", state: .active, productID: "pro_monthly", expiry: now.addingTimeInterval(86400))
        try harness.apple.addTransaction(
            harness.transaction("2000000000000932", expires: now.addingTimeInterval(86400), signedAt: now), signer: harness.pki.signer(),
            environment: .sandbox)
        harness.stripe.putSubscription(.init(id: "sub_mm", priceID: "price_monthly", created: now, currentPeriodEnd: now.addingTimeInterval(86400)))
        let mismatches: [([String: Any], String)] = [
            (["user_id": "ply-user-2", "store_product_id": "pro_yearly", "purchase_token": "tok-mm"], "PLAY_STORE"),
            (["user_id": "ply-user-2", "store_product_id": "com.example.yearly", "original_transaction_id": "2000000000000932"], "APP_STORE"),
            (
                ["user_id": "ply-user-2", "store_product_id": "price_yearly", "stripe_object_type": "subscription", "stripe_object_id": "sub_mm"],
                "STRIPE"
            ),
            (
                ["user_id": "ply-user-2", "stripe_price_id": "price_yearly", "stripe_object_type": "subscription", "stripe_object_id": "sub_mm"],
                "STRIPE"
            )
        ]
        for (body, platform) in mismatches {
            let response = try await harness.receipts(body, platform: platform)
            #expect(response.status == .unprocessableContent, "\(platform): \(response.text)")
            #expect(response.errorCode == "unprocessable", "\(platform): \(response.text)")
            #expect((response.jsonObject?["error"] as? [String: Any])?["retryable"] as? Bool == false)
        }
        #expect(try await harness.count("SELECT COUNT(*) FROM purchases") == 0)
        #expect(try await harness.count("SELECT COUNT(*) FROM accounts") == 0)
    }
}
