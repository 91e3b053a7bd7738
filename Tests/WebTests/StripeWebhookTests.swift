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
        #expect(
            (stale.jsonObject?["error"] as? [String: Any])?["message"] as? String == "Stripe-Signature timestamp is 301 s old; tolerance is 300 s")
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

    @Test("A refund as Stripe sends it (the Charge's created is when it was paid) ends access; a partial one does not")
    func refund() async throws {
        let harness = try CheckoutHarness()
        let id = try await harness.startCheckout("plan=lifetime&app_user_id=user-1&email=buyer%40example.com")
        harness.clock.advance(30)
        try harness.pay(id)
        // Stripe's webhook reaches the server a few seconds after the payment.
        harness.clock.advance(5)
        let completed = try #require(harness.stripe.events.first { $0.type == "checkout.session.completed" })
        #expect(await harness.deliver(completed).status == .ok)
        #expect(await Self.premiumActive(harness) == true)
        let intent = try #require(harness.stripe.session(id: id)?.paymentIntentID)
        let paidAt = try #require(harness.stripe.charge(paymentIntentID: intent)?.paidAt)
        harness.clock.advance(86_400)
        let partial = try harness.stripe.refund(paymentIntentID: intent, amount: 100)
        #expect(await harness.deliver(partial).status == .ok)
        #expect(await Self.premiumActive(harness) == true)
        harness.clock.advance(86_400)
        let full = try harness.stripe.refund(paymentIntentID: intent)
        // What Stripe really sends: the refunded Charge still carries the time it was paid.
        #expect(full.object["created"] as? Int == Int(paidAt.timeIntervalSince1970))
        #expect(full.object["amount_refunded"] as? Int == 999)
        let response = await harness.deliver(full)
        #expect(response.status == .ok)
        #expect(await Self.premiumActive(harness) == false)
        #expect(try await harness.count("SELECT count(*) FROM purchases WHERE status = 'refunded'") == 1)
    }

    @Test("A refund of a subscription's invoice ends access; the next paid renewal restores it")
    func subscriptionRefund() async throws {
        let harness = try CheckoutHarness()
        let id = try await harness.startCheckout()
        try harness.pay(id)
        for event in harness.stripe.events { #expect(await harness.deliver(event).status == .ok) }
        #expect(await Self.premiumActive(harness) == true)
        let invoice = try #require(harness.stripe.session(id: id)?.invoiceID)
        harness.clock.advance(3_600)
        #expect(await harness.deliver(try harness.stripe.refund(invoiceID: invoice)).status == .ok)
        #expect(await Self.premiumActive(harness) == false)
        // A late copy of the refunded period's invoice.paid does not bring access back.
        let firstPaid = try #require(harness.stripe.events.first { $0.type == "invoice.paid" })
        #expect(await harness.deliver(firstPaid, id: "evt_test_late_copy").status == .ok)
        #expect(await Self.premiumActive(harness) == false)
        harness.clock.advance(30 * 86_400)
        let renewal = try harness.stripe.renewSubscription(id: try #require(harness.stripe.session(id: id)?.subscriptionID))
        #expect(await harness.deliver(renewal.invoicePaid).status == .ok)
        #expect(await Self.premiumActive(harness) == true)
    }

    @Test("A dispute closed lost ends access; one closed won changes nothing")
    func disputes() async throws {
        let harness = try CheckoutHarness()
        let id = try await harness.startCheckout("plan=lifetime&app_user_id=user-1&email=buyer%40example.com")
        try harness.pay(id)
        #expect(await harness.webhook("checkout.session.completed", object: try #require(harness.stripe.sessionObject(id: id))).status == .ok)
        let intent = try #require(harness.stripe.session(id: id)?.paymentIntentID)
        let openedAt = harness.clock.now
        harness.clock.advance(7 * 86_400)
        #expect(await harness.deliver(try harness.stripe.closeDispute(paymentIntentID: intent, status: "won", openedAt: openedAt)).status == .ok)
        #expect(await Self.premiumActive(harness) == true)
        harness.clock.advance(60)
        #expect(await harness.deliver(try harness.stripe.closeDispute(paymentIntentID: intent, status: "lost", openedAt: openedAt)).status == .ok)
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
