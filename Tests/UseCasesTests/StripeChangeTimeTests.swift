import Domain
import Foundation
import Integrations
import Storage
import Testing
import TestSupport
@testable import UseCases

/// Stripe's events applied without HTTP: each change is dated by the event, never by the object
/// it carries, and a refund or a lost dispute ends what it paid for.
@Suite("Stripe events: change times, refunds and disputes")
struct StripeChangeTimeTests {
    /// A one-time purchase completed `delay` seconds after it was paid (as a webhook arrives), and
    /// `ApplyStripeEvent` over a Stripe client that must not be called (nothing to read).
    static func setUp(delay: TimeInterval) throws -> (UseCaseBench, ApplyStripeEvent, paidAt: Date) {
        let bench = try UseCaseBench()
        let paidAt = bench.now
        bench.advance(delay)
        let snapshot = PurchaseSnapshot(
            platform: .stripe, externalID: "pi_1", productID: "price_lifetime", status: .active, expiresAt: nil, observedAt: bench.now)
        let paid = CompleteCheckout.PaidCheckout(
            sessionID: "cs_1", snapshot: snapshot, aliases: [], email: "buyer@example.com", clientReferenceID: nil, metadata: [:])
        _ = try bench.complete(paid, codeTTL: 3600)
        // Nothing listens here: a call to Stripe would fail the test with an upstream error.
        let stripe = StripeClient(secretKey: "sk_test_1", apiBase: "http://127.0.0.1:9", http: URLSessionHTTPClient(service: "stripe"))
        let apply = ApplyStripeEvent(
            database: bench.database, stripe: stripe,
            completeCheckout: CompleteCheckout(
                database: bench.database, stripe: stripe, codeTTL: 3600, vault: bench.vault, secrets: bench.secrets, codeMail: bench.codeMail,
                vouching: .init(prices: ["price_lifetime"])),
            vouching: .init(prices: ["price_lifetime"]), logger: .disabled)
        return (bench, apply, paidAt)
    }

    static func status(_ bench: UseCaseBench) throws -> PurchaseStatus? {
        try bench.database.readSync { try PurchaseRepository.find(platform: .stripe, reference: "pi_1", on: $0)?.status }
    }

    @Test("charge.refunded dated by the event ends a purchase recorded after the charge was paid")
    func refundByEventTime() async throws {
        let (bench, apply, paidAt) = try Self.setUp(delay: 5)
        bench.advance(86_400)
        let charge = StripeCharge(id: "ch_1", paymentIntentID: "pi_1", amount: 999, amountRefunded: 999, refunded: true, paidAt: paidAt)
        let event = StripeEvent(id: "evt_refund", type: "charge.refunded", created: bench.now, livemode: false, payload: .chargeRefunded(charge))
        #expect(try await apply.apply(event, now: bench.now) == .applied)
        #expect(try Self.status(bench) == .refunded)
        // The same event again does nothing twice.
        #expect(try await apply.apply(event, now: bench.now) == .duplicate)
    }

    @Test("A partial refund changes nothing")
    func partialRefund() async throws {
        let (bench, apply, paidAt) = try Self.setUp(delay: 5)
        bench.advance(60)
        let charge = StripeCharge(id: "ch_1", paymentIntentID: "pi_1", amount: 999, amountRefunded: 100, refunded: false, paidAt: paidAt)
        let event = StripeEvent(id: "evt_partial", type: "charge.refunded", created: bench.now, livemode: false, payload: .chargeRefunded(charge))
        #expect(try await apply.apply(event, now: bench.now) == .applied)
        #expect(try Self.status(bench) == .active)
    }

    @Test("charge.dispute.closed: lost ends access, won does not")
    func disputes() async throws {
        let (bench, apply, paidAt) = try Self.setUp(delay: 5)
        bench.advance(7 * 86_400)
        let won = StripeDispute(id: "dp_1", chargeID: "ch_1", paymentIntentID: "pi_1", amount: 999, status: "won", openedAt: paidAt)
        #expect(
            try await apply.apply(
                .init(id: "evt_won", type: "charge.dispute.closed", created: bench.now, livemode: false, payload: .disputeClosed(won)), now: bench.now
            ) == .applied)
        #expect(try Self.status(bench) == .active)
        var lost = won
        lost.status = "lost"
        bench.advance(60)
        #expect(
            try await apply.apply(
                .init(id: "evt_lost", type: "charge.dispute.closed", created: bench.now, livemode: false, payload: .disputeClosed(lost)),
                now: bench.now) == .applied)
        #expect(try Self.status(bench) == .refunded)
    }

    @Test("A one-time purchase's refund is final: it applies even when the purchase was recorded after the refund happened")
    func refundIsFinalForOneTimePurchases() async throws {
        // The success page recorded the purchase (read from Stripe) after the merchant refunded it;
        // the refund's webhook comes later still, dated before the record.
        let (bench, apply, paidAt) = try Self.setUp(delay: 1_200)
        let charge = StripeCharge(id: "ch_1", paymentIntentID: "pi_1", amount: 999, amountRefunded: 999, refunded: true, paidAt: paidAt)
        let refund = StripeEvent(
            id: "evt_refund", type: "charge.refunded", created: paidAt.addingTimeInterval(600), livemode: false, payload: .chargeRefunded(charge))
        bench.advance(600)
        #expect(try await apply.apply(refund, now: bench.now) == .applied)
        #expect(try Self.status(bench) == .refunded)
    }
}
