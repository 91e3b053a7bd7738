import Foundation
import HTTPCore
import HTTPRouting
import Testing

@testable import Web

@Suite("Stripe webhooks")
struct StripeWebhookTests {
    /// A completed, redeemed monthly purchase; returns the subscription id and the app user's headers.
    static func subscribed(_ harness: CheckoutHarness) async throws -> String {
        let id = try await harness.startCheckout("plan=monthly&app_user_id=user-1&email=buyer%40example.com")
        try harness.pay(id)
        #expect(await harness.webhook("checkout.session.completed", object: try #require(harness.stripe.sessionObject(id: id))).status == .ok)
        return try #require(harness.stripe.session(id: id)?.subscriptionID)
    }

    static func premiumActive(_ harness: CheckoutHarness) async -> Bool? {
        let response = await harness.app.send(.get, "/api/v1/entitlements?app_user_id=user-1", headers: ["X-Api-Key": CheckoutHarness.apiKey])
        return (response.jsonObject?["entitlements"] as? [[String: Any]])?.first?["active"] as? Bool
    }

    @Test("A bad signature, another secret or a stale timestamp is 400 and stores nothing")
    func rejected() async throws {
        let harness = try CheckoutHarness()
        let id = try await harness.startCheckout()
        try harness.pay(id)
        let object = try #require(harness.stripe.sessionObject(id: id))
        let wrongSecret = await harness.webhook("checkout.session.completed", object: object, secret: "whsec_other")
        #expect(wrongSecret.status == .badRequest)
        let stale = await harness.webhook("checkout.session.completed", object: object, signedAt: harness.clock.now.addingTimeInterval(-301))
        #expect(stale.status == .badRequest)
        #expect((stale.jsonObject?["error"] as? [String: Any])?["message"] as? String == "Stripe-Signature timestamp is 301 s old; tolerance is 300 s")
        let event = harness.stripe.webhook(type: "checkout.session.completed", object: object, created: harness.clock.now)
        var tampered = event.body
        tampered[tampered.count / 2] ^= 0x01
        let flipped = await harness.app.send(.post, "/webhooks/stripe", headers: ["Stripe-Signature": event.signatureHeader], bytes: tampered)
        #expect(flipped.status == .badRequest)
        let unsigned = await harness.app.send(.post, "/webhooks/stripe", bytes: event.body)
        #expect(unsigned.status == .badRequest)
        #expect(try await harness.count("SELECT count(*) FROM webhook_events") == 0)
        #expect(try await harness.count("SELECT count(*) FROM purchases") == 0)
    }

    @Test("A replayed event is 200 and does nothing twice")
    func replay() async throws {
        let harness = try CheckoutHarness()
        let id = try await harness.startCheckout()
        try harness.pay(id)
        let object = try #require(harness.stripe.sessionObject(id: id))
        let first = await harness.webhook("checkout.session.completed", object: object, id: "evt_test_replayed")
        let second = await harness.webhook("checkout.session.completed", object: object, id: "evt_test_replayed")
        #expect(first.status == .ok && second.status == .ok)
        #expect(second.jsonObject?["duplicate"] as? Bool == true)
        #expect(try await harness.count("SELECT count(*) FROM mail_outbox") == 1)
        #expect(try await harness.count("SELECT count(*) FROM webhook_events") == 1)
    }

    @Test("Out-of-order subscription events never move a purchase back")
    func outOfOrder() async throws {
        let harness = try CheckoutHarness()
        let subscriptionID = try await Self.subscribed(harness)
        let start = harness.clock.now
        harness.clock.advance(100)
        _ = try harness.stripe.updateSubscription(id: subscriptionID, status: "canceled")
        let canceled = try #require(harness.stripe.subscriptionObject(id: subscriptionID))
        #expect(await harness.webhook("customer.subscription.deleted", object: canceled, created: harness.clock.now).status == .ok)
        #expect(await Self.premiumActive(harness) == false)
        // An older "active" update arrives late.
        _ = try harness.stripe.updateSubscription(id: subscriptionID, status: "active")
        let stale = try #require(harness.stripe.subscriptionObject(id: subscriptionID))
        #expect(await harness.webhook("customer.subscription.updated", object: stale, created: start.addingTimeInterval(50)).status == .ok)
        #expect(await Self.premiumActive(harness) == false)
    }

    @Test("A full refund ends the entitlement; a partial one does not")
    func refund() async throws {
        let harness = try CheckoutHarness()
        let id = try await harness.startCheckout("plan=lifetime&app_user_id=user-1&email=buyer%40example.com")
        try harness.pay(id)
        #expect(await harness.webhook("checkout.session.completed", object: try #require(harness.stripe.sessionObject(id: id))).status == .ok)
        #expect(await Self.premiumActive(harness) == true)
        let intent = try #require(harness.stripe.session(id: id)?.paymentIntentID)
        harness.clock.advance(60)
        let partial = harness.stripe.chargeRefundedObject(paymentIntentID: intent, amount: 999, amountRefunded: 100, created: harness.clock.now)
        #expect(await harness.webhook("charge.refunded", object: partial).status == .ok)
        #expect(await Self.premiumActive(harness) == true)
        harness.clock.advance(60)
        let full = harness.stripe.chargeRefundedObject(paymentIntentID: intent, amount: 999, amountRefunded: 999, created: harness.clock.now)
        #expect(await harness.webhook("charge.refunded", object: full).status == .ok)
        #expect(await Self.premiumActive(harness) == false)
    }

    @Test("invoice.paid extends access to the subscription's new period")
    func renewal() async throws {
        let harness = try CheckoutHarness()
        let subscriptionID = try await Self.subscribed(harness)
        harness.clock.advance(31 * 86400)
        #expect(await Self.premiumActive(harness) == false, "the first period ended")
        _ = try harness.stripe.updateSubscription(id: subscriptionID, status: "active", periodEnd: harness.clock.now.addingTimeInterval(30 * 86400))
        let invoice = try #require(harness.stripe.invoicePaidObject(subscriptionID: subscriptionID))
        #expect(await harness.webhook("invoice.paid", object: invoice).status == .ok)
        #expect(await Self.premiumActive(harness) == true)
    }

    @Test("Unknown event types are acknowledged; Stripe down while reading answers 503 so Stripe retries")
    func unknownAndOutage() async throws {
        let harness = try CheckoutHarness()
        let unknown = await harness.webhook("customer.created", object: ["id": "cus_1", "object": "customer"])
        #expect(unknown.status == .ok)
        let subscriptionID = try await Self.subscribed(harness)
        harness.stripe.failNextRequests(status: 503, count: 1)
        let invoice = try #require(harness.stripe.invoicePaidObject(subscriptionID: subscriptionID))
        let deferred = await harness.webhook("invoice.paid", object: invoice, id: "evt_test_retry_me")
        #expect(deferred.status == .serviceUnavailable)
        #expect((deferred.jsonObject?["error"] as? [String: Any])?["retryable"] as? Bool == true)
        let retried = await harness.webhook("invoice.paid", object: invoice, id: "evt_test_retry_me")
        #expect(retried.status == .ok)
        #expect(retried.jsonObject?["duplicate"] as? Bool == false, "the failed attempt recorded nothing")
    }
}
