import Foundation
import HTTPCore
import Testing
import TestSupport

/// StoreKit 1 integrations (Cleeng's `transactionId` + `receiptData`) send a transaction id and
/// the app receipt together: `/api/v1/iap/apple` verifies the receipt and claims the purchase
/// that holds that transaction, in its newest state.
@Suite("StoreKit 1: transaction_id with app_receipt_base64")
struct StoreKit1ClaimTests {
    /// A receipt with a subscription in its third period (two earlier periods only in `in_app`)
    /// and a non-consumable bought later.
    private static func addReceipt(_ harness: StoresHarness) {
        let now = harness.clock.now
        let day: TimeInterval = 86400
        let periods = (1...3).map { period in
            FakeAppStoreServer.ReceiptPurchase(
                productID: "com.example.monthly", transactionID: "100000000000000\(period)", originalTransactionID: "1000000000000001",
                purchaseDate: now.addingTimeInterval(Double(period - 3) * 30 * day - day),
                expiresDate: now.addingTimeInterval(Double(period - 2) * 30 * day - day),
                originalPurchaseDate: now.addingTimeInterval(-61 * day))
        }
        let lifetime = FakeAppStoreServer.ReceiptPurchase(
            productID: "com.example.lifetime", transactionID: "5000000000000001", originalTransactionID: "5000000000000001",
            purchaseDate: now.addingTimeInterval(-3600), autoRenewStatus: nil)
        harness.apple.addReceipt(
            "MIIT1RECEIPT", environment: .sandbox,
            answer: .receipt(
                bundleID: StoresHarness.bundleID, environment: "Sandbox", latestReceiptInfo: [periods[2]],
                inApp: periods + [lifetime], requestDate: now))
    }

    private static func post(_ harness: StoresHarness, _ body: String) async -> HTTPResponse {
        await harness.app.send(
            .post, "/api/v1/iap/apple", headers: ["X-Api-Key": StoresHarness.apiKey, "Content-Type": "application/json"], body: body)
    }

    @Test(
        "An earlier period's transaction id claims its subscription in its newest state, not the receipt's newest purchase; Cleeng's own camelCase body the same",
        arguments: [
            #"{"transaction_id":"1000000000000001","app_receipt_base64":"MIIT1RECEIPT"}"#,
            #"{"transactionId":"1000000000000001","receiptData":"MIIT1RECEIPT"}"#
        ])
    func claimsThatTransaction(body: String) async throws {
        let harness = try await StoresHarness()
        defer { Task { await harness.stop() } }
        Self.addReceipt(harness)
        let response = await Self.post(harness, body)
        #expect(response.status == .ok, "\(response.text.prefix(400))")
        let purchase = try #require(response.jsonObject?["purchase"] as? [String: Any])
        #expect(purchase["product_id"] as? String == "com.example.monthly")
        #expect(purchase["status"] as? String == "active")
        let expected = ISO8601DateFormatter().string(from: harness.clock.now.addingTimeInterval(30 * 86400 - 86400))
        #expect(purchase["expires_at"] as? String == expected, "the third period's expiry")
        #expect(response.jsonObject?["auto_account_created"] as? Bool == true)
    }

    @Test("A transaction the receipt does not hold is 422 invalid_receipt, and nothing is written")
    func missingTransaction() async throws {
        let harness = try await StoresHarness()
        defer { Task { await harness.stop() } }
        Self.addReceipt(harness)
        let response = await Self.post(harness, #"{"transaction_id":"9999999999999999","app_receipt_base64":"MIIT1RECEIPT"}"#)
        #expect(response.status == .unprocessableContent)
        #expect(response.errorCode == "invalid_receipt")
        #expect(response.text.contains("9999999999999999"))
        #expect(try await harness.count("SELECT count(*) FROM purchases") == 0)
        #expect(try await harness.count("SELECT count(*) FROM accounts") == 0)
    }

    @Test("Cleeng's camelCase body: a transaction the receipt does not hold is 422; receiptData alone or beside app_receipt_base64 is 400")
    func cleengCamelCaseRefusals() async throws {
        let harness = try await StoresHarness()
        defer { Task { await harness.stop() } }
        Self.addReceipt(harness)
        let missing = await Self.post(harness, #"{"transactionId":"9999999999999999","receiptData":"MIIT1RECEIPT"}"#)
        #expect(missing.status == .unprocessableContent && missing.errorCode == "invalid_receipt")
        let alone = await Self.post(harness, #"{"receiptData":"MIIT1RECEIPT"}"#)
        #expect(alone.status == .badRequest && alone.errorCode == "bad_request")
        let mixed = await Self.post(
            harness, #"{"transactionId":"1000000000000002","receiptData":"MIIT1RECEIPT","app_receipt_base64":"MIIT1RECEIPT"}"#)
        #expect(mixed.status == .badRequest)
    }
}
