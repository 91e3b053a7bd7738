import Domain
import Foundation
import Integrations
import Testing

@Suite("Stripe subscription → purchase snapshot")
struct StripeSubscriptionSnapshotTests {
    static let periodEnd = Date(timeIntervalSince1970: 1_702_592_000)
    static let observed = Date(timeIntervalSince1970: 1_700_000_000)

    static func subscription(_ status: String, cancelAtPeriodEnd: Bool = false, cancelAt: Date? = nil, livemode: Bool = false) -> StripeSubscription {
        StripeSubscription(
            id: "sub_1", status: .init(rawValue: status), customerID: "cus_1", priceIDs: ["price_a", "price_b"],
            currentPeriodEnd: periodEnd, cancelAtPeriodEnd: cancelAtPeriodEnd, cancelAt: cancelAt, livemode: livemode)
    }

    @Test(
        "Every Stripe status maps to the documented purchase status",
        arguments: [
            ("active", false, PurchaseStatus.active, true),
            ("active", true, .canceled, true),
            ("trialing", false, .trialing, true),
            ("trialing", true, .trialing, true),
            ("past_due", false, .billingRetry, false),
            ("unpaid", false, .billingRetry, false),
            ("canceled", false, .expired, false),
            ("incomplete_expired", false, .expired, false),
            ("incomplete", false, .pending, false),
            ("paused", false, .paused, false),
            ("some_future_status", false, .pending, false)
        ])
    func status(_ stripeStatus: String, _ cancelAtPeriodEnd: Bool, _ expected: PurchaseStatus, _ entitledBeforeEnd: Bool) {
        let snapshot = Self.subscription(stripeStatus, cancelAtPeriodEnd: cancelAtPeriodEnd).snapshot(observedAt: Self.observed, purchaserEmail: nil)
        #expect(snapshot.status == expected)
        #expect(snapshot.isEntitled(at: Self.observed) == entitledBeforeEnd)
        #expect(!snapshot.isEntitled(at: Self.periodEnd.addingTimeInterval(1)))
    }

    @Test("Every documented status is covered by the table")
    func allStatusesKnown() {
        #expect(StripeSubscription.Status.all.count == 8)
        for status in StripeSubscription.Status.all {
            // Only an unknown status may fall through to `.pending`; `incomplete` is pending by design.
            let mapped = Self.subscription(status.rawValue).purchaseStatus
            #expect(status == .incomplete ? mapped == .pending : mapped != .pending, "\(status)")
        }
    }

    @Test("A scheduled cancel_at on an active subscription is a cancellation")
    func cancelAt() {
        let snapshot = Self.subscription("active", cancelAt: Self.periodEnd).snapshot(observedAt: Self.observed, purchaserEmail: nil)
        #expect(snapshot.status == .canceled)
    }

    @Test("Snapshot fields: ids, first price, period end, environment, email, observation time")
    func fields() {
        let test = Self.subscription("active").snapshot(observedAt: Self.observed, purchaserEmail: "buyer@example.com")
        #expect(test.platform == .stripe)
        #expect(test.externalID == "sub_1")
        #expect(test.productID == "price_a")
        #expect(test.expiresAt == Self.periodEnd)
        #expect(test.environment == "test")
        #expect(test.observedAt == Self.observed)
        #expect(test.purchaserEmail == "buyer@example.com")
        #expect(test.customerID == "cus_1")
        #expect(Self.subscription("active", livemode: true).snapshot(observedAt: Self.observed, purchaserEmail: nil).environment == "live")
    }

    @Test("An immediately canceled subscription expires when it ended, not at the period end")
    func endedEarly() {
        var subscription = Self.subscription("canceled")
        let ended = Date(timeIntervalSince1970: 1_700_000_100)
        subscription.endedAt = ended
        #expect(subscription.snapshot(observedAt: ended, purchaserEmail: nil).expiresAt == ended)
        subscription.endedAt = Self.periodEnd.addingTimeInterval(10)
        #expect(subscription.snapshot(observedAt: ended, purchaserEmail: nil).expiresAt == Self.periodEnd)
    }
}

@Suite("Stripe one-time checkout → purchase snapshot")
struct StripePaymentSnapshotTests {
    static func session(
        mode: StripeCheckoutSession.Mode = .payment, status: StripeCheckoutSession.Status, paymentStatus: StripeCheckoutSession.PaymentStatus,
        paymentIntentID: String? = "pi_1"
    ) -> StripeCheckoutSession {
        StripeCheckoutSession(
            id: "cs_test_1", mode: mode, status: status, paymentStatus: paymentStatus, customerID: "cus_1", email: "a@b.c",
            paymentIntentID: paymentIntentID, created: Date(timeIntervalSince1970: 1_700_000_000), livemode: true)
    }

    @Test("Paid sessions are active forever, unpaid pending, expired expired; keyed by payment intent")
    func paymentStates() throws {
        let now = Date(timeIntervalSince1970: 1_700_000_100)
        let paid = try #require(Self.session(status: .complete, paymentStatus: .paid).paymentSnapshot(productID: "price_life", observedAt: now))
        #expect(paid.status == .active)
        #expect(paid.externalID == "pi_1")
        #expect(paid.productID == "price_life")
        #expect(paid.expiresAt == nil)
        #expect(paid.environment == "live")
        #expect(paid.purchaserEmail == "a@b.c")
        #expect(paid.transactionID == "cs_test_1")
        #expect(paid.isEntitled(at: .distantFuture))
        #expect(Self.session(status: .complete, paymentStatus: .unpaid).paymentSnapshot(productID: "p", observedAt: now)?.status == .pending)
        #expect(Self.session(status: .open, paymentStatus: .unpaid).paymentSnapshot(productID: "p", observedAt: now)?.status == .pending)
        #expect(Self.session(status: .expired, paymentStatus: .unpaid).paymentSnapshot(productID: "p", observedAt: now)?.status == .expired)
        let free = Self.session(status: .complete, paymentStatus: .noPaymentRequired, paymentIntentID: nil)
        #expect(free.paymentSnapshot(productID: "p", observedAt: now)?.externalID == "cs_test_1")
        #expect(Self.session(mode: .subscription, status: .complete, paymentStatus: .paid).paymentSnapshot(productID: "p", observedAt: now) == nil)
    }
}
