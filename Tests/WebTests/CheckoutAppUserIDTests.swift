import Foundation
import HTTPCore
import Testing

@testable import App
@testable import Web

/// `app_user_id` has one bound wherever it is sent (`AppUserIDInput`: 1 to 255 bytes, one line),
/// at checkout too, although Stripe's `client_reference_id` holds only 200 characters: a longer
/// id travels in the session's metadata and the checkout's record.
@Suite("Checkout's app_user_id")
struct CheckoutAppUserIDTests {
    @Test("An app_user_id of 255 bytes starts a checkout whose purchase is linked to it")
    func longestIsLinked() async throws {
        let harness = try CheckoutHarness()
        let user = String(repeating: "u", count: AppUserIDInput.maxBytes)
        let session = try await harness.startCheckout("plan=monthly&app_user_id=\(user)&email=buyer%40example.com")
        let stored = try #require(harness.stripe.sessionObject(id: session))
        #expect(stored["client_reference_id"] is NSNull, "past Stripe's 200 characters it is not sent there")
        #expect((stored["metadata"] as? [String: String])?["app_user_id"] == user)
        try harness.pay(session)
        #expect(await harness.successPage(session).status == .ok)
        #expect(try await harness.count("SELECT COUNT(*) FROM purchases WHERE app_user_id = '\(user)'") == 1)
    }

    @Test(
        "A longer app_user_id, or one with a line break, is a 400 page and starts nothing",
        arguments: [
            String(repeating: "u", count: AppUserIDInput.maxBytes + 1), "user%0A1"
        ])
    func refused(_ user: String) async throws {
        let harness = try CheckoutHarness()
        let response = await harness.app.send(.get, "/checkout/start?plan=monthly&app_user_id=\(user)")
        #expect(response.status == .badRequest)
        #expect(response.text.contains("app_user_id must be 1 to 255 characters"))
        #expect(try await harness.count("SELECT COUNT(*) FROM checkouts") == 0)
    }
}
