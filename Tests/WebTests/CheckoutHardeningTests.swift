import Foundation
import HTTPCore
import HTTPRouting
import Testing
import TestSupport

@testable import App
@testable import Web

/// Inputs that once answered 500 on the checkout paths (an attack run found them): each now gets
/// a clear 4xx, or a 200 that Stripe will not retry for three days, and stores nothing.
@Suite("Checkout hardening")
struct CheckoutHardeningTests {
    @Test(
        "A malformed or unknown session id on the success page is a 4xx page, never 500",
        arguments: ["cs_", "cs_x", "cs_test_unknown_42", "cs_%00", "px_1"])
    func malformedSuccessSessionIDs(_ id: String) async throws {
        let harness = try CheckoutHarness()
        let page = await harness.successPage(id)
        #expect((400..<500).contains(page.status.code), "\(id): \(page.status)")
        #expect(page.headers["Content-Type"]?.hasPrefix("text/html") == true)
        #expect(try await harness.count("SELECT COUNT(*) FROM purchases") == 0)
    }

    @Test("A signed checkout.session.completed that cannot become a purchase is acknowledged (200), logged, and stores nothing")
    func unusableCompletedSessions() async throws {
        let harness = try CheckoutHarness()
        let base: [String: Any] = [
            "id": "cs_test_unusable", "object": "checkout.session", "status": "complete", "payment_status": "paid",
            "created": Int(harness.clock.now.timeIntervalSince1970), "livemode": false, "metadata": [String: String](),
            "customer_details": ["email": "buyer@example.com"]
        ]
        let variants: [(String, [String: Any])] = [
            ("setup mode", ["mode": "setup", "subscription": NSNull()]),
            ("subscription without a subscription", ["mode": "subscription", "subscription": NSNull()]),
            ("an unknown mode", ["mode": "installments", "subscription": NSNull()])
        ]
        for (index, (name, fields)) in variants.enumerated() {
            var object = base
            for (key, value) in fields { object[key] = value }
            object["id"] = "cs_test_unusable_\(index)"
            let response = await harness.webhook("checkout.session.completed", object: object, id: "evt_unusable_\(index)")
            #expect(response.status == .ok, "\(name): \(response.status) \(response.text)")
            // A redelivery is a duplicate, not an error either.
            let again = await harness.webhook("checkout.session.completed", object: object, id: "evt_unusable_\(index)")
            #expect(again.status == .ok && again.jsonObject?["duplicate"] as? Bool == true, "\(name)")
        }
        #expect(try await harness.count("SELECT COUNT(*) FROM purchases") == 0)
        #expect(try await harness.count("SELECT COUNT(*) FROM redemption_codes") == 0)
        #expect(harness.app.logs.lines.contains { $0.contains("stripe_event_ignored") })
    }

    @Test("Reusing a completed checkout_context_id for a new checkout is a clear 409 page, not 500")
    func reusedCheckoutContext() async throws {
        let harness = try CheckoutHarness()
        let context = "7d0a3f6c-1b2e-4c5d-8e9f-0a1b2c3d4e5f"
        let first = try await harness.startCheckout("plan=monthly&app_user_id=user-1&checkout_context_id=\(context)")
        try harness.pay(first)
        #expect(await harness.successPage(first).status == .ok)
        // Another plan with the same context id: Stripe answers another session. (Another app user:
        // user-1 now holds what lifetime grants, which is refused on its own: "Already entitled".)
        let reused = await harness.app.send(.get, "/checkout/start?plan=lifetime&app_user_id=user-2&checkout_context_id=\(context)")
        #expect(reused.status == .conflict)
        #expect(reused.headers["Content-Type"]?.hasPrefix("text/html") == true)
        #expect(reused.text.contains("already started"))
    }
}
