import Foundation
import HTTPCore
import Testing
import TestSupport

@testable import Web

/// Issue 44, item 2, through the route: `stripe.webhook_secrets` accepts an event signed with any
/// of them, and a roll header (one `v1=` per secret) under either configuration.
@Suite("POST /webhooks/stripe during a secret roll")
struct StripeSecretRollTests {
    static let newSecret = "whsec_rolled_in_this_week"

    /// What Stripe sends during a roll: one `t=` and a `v1=` under each secret, new first.
    static func rollHeader(_ body: [UInt8], at date: Date) -> String {
        let timestamp = Int(date.timeIntervalSince1970)
        let signatures = [newSecret, CheckoutHarness.webhookSecret].map {
            FakeStripe.signatureHeader(body: body, timestamp: timestamp, secret: $0).split(separator: ",")[1]
        }
        return "t=\(timestamp),\(signatures.joined(separator: ","))"
    }

    @Test(
        "stripe.webhook_secrets [new, old]: events signed with old, with new, or with both (Stripe's roll header) are applied; another secret is refused"
    )
    func anySecretOfTheList() async throws {
        let harness = try CheckoutHarness(webhookSecrets: [Self.newSecret, CheckoutHarness.webhookSecret])
        let id = try await harness.startCheckout()
        try harness.pay(id)
        let object = try #require(harness.stripe.sessionObject(id: id))
        #expect(await harness.webhook("checkout.session.completed", object: object, id: "evt_old").status == .ok)
        #expect(await harness.webhook("checkout.session.completed", object: object, id: "evt_new", secret: Self.newSecret).status == .ok)
        let refused = await harness.webhook("checkout.session.completed", object: object, id: "evt_other", secret: "whsec_never_configured")
        #expect(refused.status == .badRequest)

        let event = harness.stripe.webhook(
            type: "checkout.session.completed", object: object, created: harness.clock.now, id: "evt_both", signedAt: harness.clock.now)
        let header = Self.rollHeader(event.body, at: harness.clock.now)
        let both = await harness.app.send(
            .post, "/webhooks/stripe", headers: ["Stripe-Signature": header, "Content-Type": "application/json"], bytes: event.body)
        #expect(both.status == .ok, "\(both.text)")
        #expect(try await harness.count("SELECT COUNT(*) FROM purchases") == 1)
    }

    @Test("The one stripe.webhook_secret still works, and takes the roll header too")
    func oneSecretStillWorks() async throws {
        let harness = try CheckoutHarness()
        let id = try await harness.startCheckout()
        try harness.pay(id)
        let object = try #require(harness.stripe.sessionObject(id: id))
        let event = harness.stripe.webhook(
            type: "checkout.session.completed", object: object, created: harness.clock.now, id: "evt_roll", signedAt: harness.clock.now)
        let header = Self.rollHeader(event.body, at: harness.clock.now)
        let response = await harness.app.send(
            .post, "/webhooks/stripe", headers: ["Stripe-Signature": header, "Content-Type": "application/json"], bytes: event.body)
        #expect(response.status == .ok, "\(response.text)")
    }
}
