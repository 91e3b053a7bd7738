import Foundation
import HTTPCore
import JSON
import Testing
import TestSupport

@testable import Web

/// Issue 44, item 6: a signed transaction that verifies but carries no transaction ids is refused
/// saying what is missing, never "does not verify" (which would send the developer after the chain).
@Suite("App Store: verified data that lacks its ids says so")
struct AppleMissingIDsTests {
    @Test(
        "POST /api/v1/iap/apple with a genuinely signed transaction without transactionId and originalTransactionId: 422 naming them; nothing stored")
    func missingIDs() async throws {
        let harness = try await StoresHarness()
        defer { Task { await harness.stop() } }
        let transaction = harness.transaction("3000000000000077", expires: harness.clock.now.addingTimeInterval(86400), signedAt: harness.clock.now)
        guard case .object(let members) = transaction.payload else { Issue.record("not an object"); return }
        let stripped = JSONValue.object(members.filter { $0.key != "transactionId" && $0.key != "originalTransactionId" })
        let jws = try harness.pki.signer(.valid).sign(stripped)
        let body = try JSONSerialization.data(withJSONObject: ["subscription_transaction_jws": jws])
        let response = await harness.app.send(
            .post, "/api/v1/iap/apple", headers: ["X-Api-Key": StoresHarness.apiKey, "Content-Type": "application/json"], bytes: Array(body))
        #expect(response.status == .unprocessableContent, "\(response.text)")
        let message = try #require((response.jsonObject?["error"] as? [String: Any])?["message"] as? String)
        #expect(message.contains("verifies but has no originalTransactionId (nor a transactionId)"), "\(message)")
        #expect(!message.contains("does not verify"), "\(message)")
        #expect(try await harness.count("SELECT COUNT(*) FROM purchases") == 0)

        // The same transaction with its ids is accepted: only the ids were missing.
        let whole = try harness.pki.signer(.valid).signTransaction(transaction)
        let fine = await harness.app.send(
            .post, "/api/v1/iap/apple", headers: ["X-Api-Key": StoresHarness.apiKey, "Content-Type": "application/json"],
            bytes: Array(try JSONSerialization.data(withJSONObject: ["subscription_transaction_jws": whole])))
        #expect(fine.status == .ok, "\(fine.text.prefix(300))")
    }
}
