import Foundation
import Integrations
import Testing
import TestSupport

@Suite("Stripe event and object decoding")
struct StripeEventTests {
    static func date(_ seconds: Int) -> Date { Date(timeIntervalSince1970: TimeInterval(seconds)) }

    static func event(_ name: String) throws -> StripeEvent {
        try StripeEvent(json: SharedVectors.bytes("stripe/events/\(name).json"))
    }

    /// Wraps a fixture object in an event envelope of `type`, as Stripe delivers it.
    static func wrapped(_ fixture: String, type: String) throws -> StripeEvent {
        let object = String(decoding: try SharedVectors.bytes("stripe/\(fixture)"), as: UTF8.self)
        let json = #"{"id":"evt_wrapped","object":"event","created":1700000000,"livemode":false,"type":"\#(type)","data":{"object":\#(object)}}"#
        return try StripeEvent(json: Array(json.utf8))
    }

    @Test("checkout.session.completed decodes every session field")
    func checkoutSessionCompleted() throws {
        let event = try Self.event("checkout.session.completed")
        #expect(event.id == "evt_cs_completed")
        #expect(event.type == "checkout.session.completed")
        #expect(event.created == Self.date(1_700_000_000))
        #expect(event.livemode == false)
        #expect(event.apiVersion == "2025-03-31.basil")
        guard case .checkoutSessionCompleted(let session) = event.payload else {
            Issue.record("wrong payload \(event.payload)")
            return
        }
        #expect(session.id == "cs_test_a1b2c3")
        #expect(session.mode == .subscription)
        #expect(session.status == .complete)
        #expect(session.paymentStatus == .paid)
        #expect(session.isPaid)
        #expect(session.customerID == "cus_Test123")
        #expect(session.email == "buyer@example.com")
        #expect(session.subscriptionID == "sub_Test123")
        #expect(session.subscription == nil)
        #expect(session.paymentIntentID == nil)
        #expect(session.invoiceID == "in_Test123")
        #expect(session.clientReferenceID == "user-42")
        #expect(session.metadata == ["user_id": "42"])
        #expect(session.created == Self.date(1_699_999_940))
        #expect(session.url == nil)
        #expect(session.livemode == false)
    }

    @Test("customer.subscription.updated decodes the item-level period end and the pending cancellation")
    func subscriptionUpdated() throws {
        let event = try Self.event("customer.subscription.updated")
        guard case .subscriptionUpdated(let subscription) = event.payload else {
            Issue.record("wrong payload \(event.payload)")
            return
        }
        #expect(subscription.id == "sub_Test123")
        #expect(subscription.status == .active)
        #expect(subscription.customerID == "cus_Test123")
        #expect(subscription.priceIDs == ["price_Pro_Monthly"])
        #expect(subscription.currentPeriodEnd == Self.date(1_702_591_940))
        #expect(subscription.cancelAtPeriodEnd)
        #expect(subscription.canceledAt == nil)
        #expect(subscription.created == Self.date(1_699_999_940))
        #expect(subscription.metadata == ["user_id": "42"])
        #expect(subscription.snapshot(observedAt: event.created, purchaserEmail: nil).status == .canceled)
    }

    @Test("customer.subscription.deleted decodes the end of the subscription")
    func subscriptionDeleted() throws {
        let event = try Self.event("customer.subscription.deleted")
        guard case .subscriptionDeleted(let subscription) = event.payload else {
            Issue.record("wrong payload \(event.payload)")
            return
        }
        #expect(subscription.status == .canceled)
        #expect(subscription.canceledAt == Self.date(1_700_000_100))
        #expect(subscription.endedAt == Self.date(1_700_000_100))
        let snapshot = subscription.snapshot(observedAt: event.created, purchaserEmail: "buyer@example.com")
        #expect(snapshot.status == .expired)
        #expect(snapshot.expiresAt == Self.date(1_700_000_100))
        #expect(!snapshot.isEntitled(at: Self.date(1_700_000_000)))
    }

    @Test("invoice.paid reads the subscription under parent.subscription_details")
    func invoicePaid() throws {
        let event = try Self.event("invoice.paid")
        guard case .invoicePaid(let invoice) = event.payload else {
            Issue.record("wrong payload \(event.payload)")
            return
        }
        #expect(invoice.id == "in_Test123")
        #expect(invoice.subscriptionID == "sub_Test123")
        #expect(invoice.subscriptionMetadata == ["user_id": "42"])
        #expect(invoice.customerID == "cus_Test123")
        #expect(invoice.status == "paid")
        #expect(invoice.amountPaid == 999)
        #expect(invoice.billingReason == "subscription_create")
        #expect(invoice.periodEnd == nil)
        #expect(invoice.paymentIntentID == nil)
    }

    @Test("charge.refunded decodes amounts, the refund flag and the payment intent")
    func chargeRefunded() throws {
        let event = try Self.event("charge.refunded")
        guard case .chargeRefunded(let charge) = event.payload else {
            Issue.record("wrong payload \(event.payload)")
            return
        }
        #expect(charge.id == "ch_Test123")
        #expect(charge.paymentIntentID == "pi_Test123")
        #expect(charge.amount == 999)
        #expect(charge.amountRefunded == 999)
        #expect(charge.refunded)
        #expect(charge.isFullyRefunded)
        #expect(charge.invoiceID == nil)
        #expect(charge.paidAt == nil)
    }

    @Test("Session and subscription event types map to their own cases")
    func typesMapToCases() throws {
        let session = String(decoding: try SharedVectors.bytes("stripe/events/checkout.session.completed.json"), as: UTF8.self)
        let async = try StripeEvent(
            json: Array(
                session.replacingOccurrences(
                    of: "\"checkout.session.completed\"", with: "\"checkout.session.async_payment_succeeded\""
                ).utf8))
        guard case .checkoutSessionAsyncPaymentSucceeded(let asyncSession) = async.payload else {
            Issue.record("wrong payload \(async.payload)")
            return
        }
        #expect(asyncSession.id == "cs_test_a1b2c3")
        let subscription = String(decoding: try SharedVectors.bytes("stripe/events/customer.subscription.updated.json"), as: UTF8.self)
        let created = try StripeEvent(
            json: Array(
                subscription.replacingOccurrences(
                    of: "\"customer.subscription.updated\"", with: "\"customer.subscription.created\""
                ).utf8))
        guard case .subscriptionCreated(let createdSubscription) = created.payload else {
            Issue.record("wrong payload \(created.payload)")
            return
        }
        #expect(createdSubscription.id == "sub_Test123")
    }

    @Test("fixture_event.json (plan.created) is unhandled but read")
    func fixtureEventIsUnhandled() throws {
        let event = try StripeEvent(json: SharedVectors.bytes("stripe/fixture_event.json"))
        #expect(event.id == "evt_1Pgc76B7WZ01zgkWwyRHS12y")
        #expect(event.payload == .unhandled(type: "plan.created"))
        #expect(event.created == Self.date(1_234_567_890))
        #expect(event.apiVersion == nil)
    }

    @Test("fixture_checkout_session.json: an open, unpaid payment session")
    func fixtureCheckoutSession() throws {
        let direct = try StripeCheckoutSession(json: SharedVectors.bytes("stripe/fixture_checkout_session.json"))
        let event = try Self.wrapped("fixture_checkout_session.json", type: "checkout.session.completed")
        #expect(event.payload == .checkoutSessionCompleted(direct))
        #expect(direct.id == "cs_test_a1YS1URlnyQCN5fUUduORoQ7Pw41PJqDWkIVQCpJPqkfIhd6tVY8XB1OLY")
        #expect(direct.mode == .payment)
        #expect(direct.status == .open)
        #expect(direct.paymentStatus == .unpaid)
        #expect(!direct.isPaid)
        #expect(direct.email == "example@example.com")
        #expect(direct.paymentIntentID == "pi_1PgafyB7WZ01zgkWSjxsAJo3")
        #expect(direct.subscriptionID == nil)
        #expect(direct.customerID == nil)
        #expect(direct.url?.hasPrefix("https://checkout.stripe.com/") == true)
        #expect(direct.metadata.isEmpty)
        // Amounts as the fixture has them: no total or currency while open, the tax in total_details.
        #expect(direct.amountTotal == nil && direct.currency == nil)
        #expect(direct.amountTax == 1_424_534_716)
    }

    @Test("fixture_subscription.json: period start and end from the item, price id, cancellation")
    func fixtureSubscription() throws {
        let event = try Self.wrapped("fixture_subscription.json", type: "customer.subscription.updated")
        guard case .subscriptionUpdated(let subscription) = event.payload else {
            Issue.record("wrong payload \(event.payload)")
            return
        }
        #expect(subscription.id == "sub_1Pgc6rB7WZ01zgkWNy0Cn5nw")
        #expect(subscription.customerID == "cus_QXg1o8vcGmoR32")
        #expect(subscription.priceIDs == ["price_1PgafmB7WZ01zgkW6dKueIc5"])
        #expect(subscription.currentPeriodEnd == Self.date(976_287_773))
        #expect(subscription.currentPeriodStart == Self.date(1_896_570_518))
        #expect(subscription.cancelAtPeriodEnd)
        #expect(subscription.cancelAt == Self.date(1_234_567_890))
        #expect(subscription.created == Self.date(1_234_567_890))
    }

    @Test("fixture_invoice.json: subscription from parent, period start and end from the lines")
    func fixtureInvoice() throws {
        let event = try Self.wrapped("fixture_invoice.json", type: "invoice.paid")
        guard case .invoicePaid(let invoice) = event.payload else {
            Issue.record("wrong payload \(event.payload)")
            return
        }
        #expect(invoice.id == "in_1Pgc6tB7WZ01zgkWu9fdqL6I")
        #expect(invoice.subscriptionID == "subscription")
        #expect(invoice.periodEnd == Self.date(1_721_954_054) && invoice.periodStart == Self.date(1_721_954_054))
        #expect(invoice.customerID == "cus_QXg1o8vcGmoR32")
        #expect(invoice.created == Self.date(1_234_567_890))
        #expect(invoice.total == 1000 && invoice.totalExcludingTax == 1000 && invoice.currency == "usd")
    }

    @Test("fixture_charge.json: a charge that is not refunded")
    func fixtureCharge() throws {
        let event = try Self.wrapped("fixture_charge.json", type: "charge.refunded")
        guard case .chargeRefunded(let charge) = event.payload else {
            Issue.record("wrong payload \(event.payload)")
            return
        }
        #expect(charge.id == "ch_1PgafuB7WZ01zgkWXYmPNZs8")
        #expect(charge.amount == 100)
        #expect(!charge.refunded)
        #expect(!charge.isFullyRefunded)
        #expect(charge.paymentIntentID == nil)
        #expect(charge.paidAt == Self.date(1_234_567_890))
    }

    @Test("Older invoice shape: top-level subscription and payment_intent; newer payments list")
    func invoiceShapes() throws {
        let old = try StripeInvoice(
            json: Array(
                #"{"id":"in_1","subscription":"sub_old","payment_intent":{"id":"pi_old","object":"payment_intent"},"customer_email":"a@b.c","livemode":true}"#
                    .utf8))
        #expect(old.subscriptionID == "sub_old")
        #expect(old.paymentIntentID == "pi_old")
        #expect(old.customerEmail == "a@b.c")
        #expect(old.livemode)
        let new = try StripeInvoice(
            json: Array(
                #"{"id":"in_2","parent":{"type":"subscription_details","subscription_details":{"subscription":"sub_new","metadata":null}},"payments":{"object":"list","data":[{"payment":{"type":"payment_intent","payment_intent":"pi_new"}}]},"lines":{"data":[{"period":{"start":1,"end":1700000000}},{"period":{"start":1,"end":1702592000}}]},"livemode":false}"#
                    .utf8))
        #expect(new.subscriptionID == "sub_new")
        #expect(new.paymentIntentID == "pi_new")
        #expect(new.periodEnd == Self.date(1_702_592_000))
        #expect(new.subscriptionMetadata.isEmpty)
    }

    @Test("Expanded references (subscription, customer, payment intent) and the customer_email fallback")
    func expandedReferences() throws {
        let json = #"""
            {"id":"cs_test_x","mode":"subscription","status":"complete","payment_status":"paid","created":1700000000,"livemode":false,
             "customer":{"id":"cus_x","object":"customer"},"customer_details":null,"customer_email":"given@example.com",
             "payment_intent":{"id":"pi_x","object":"payment_intent"},"metadata":null,
             "subscription":{"id":"sub_x","object":"subscription","status":"trialing","customer":"cus_x","livemode":false,
               "current_period_end":1702592000,"items":{"data":[{"price":{"id":"price_x"}}]}}}
            """#
        let session = try StripeCheckoutSession(json: Array(json.utf8))
        #expect(session.customerID == "cus_x")
        #expect(session.paymentIntentID == "pi_x")
        #expect(session.email == "given@example.com")
        #expect(session.subscriptionID == "sub_x")
        #expect(session.subscription?.status == .trialing)
        #expect(session.subscription?.currentPeriodEnd == Self.date(1_702_592_000))
        #expect(session.metadata.isEmpty)
    }

    @Test("Any other event type is unhandled, whatever its object")
    func unknownTypeIsUnhandled() throws {
        let event = try StripeEvent(
            json: Array(#"{"id":"evt_1","type":"payout.paid","created":1,"livemode":true,"data":{"object":{"weird":[1,2]}}}"#.utf8))
        #expect(event.payload == .unhandled(type: "payout.paid"))
        #expect(event.livemode)
    }

    @Test(
        "Malformed events are typed decoding errors",
        arguments: [
            "not json",
            "[]",
            #"{"type":"invoice.paid","created":1,"livemode":false,"data":{"object":{}}}"#,
            #"{"id":"ch_1","type":"payout.paid","created":1,"livemode":false}"#,
            #"{"id":"evt_1","type":"payout.paid","livemode":false}"#,
            #"{"id":"evt_1","type":"payout.paid","created":"yesterday","livemode":false}"#,
            #"{"id":"evt_1","type":"","created":1,"livemode":false}"#,
            #"{"id":"evt_1","type":"checkout.session.completed","created":1,"livemode":false}"#,
            #"{"id":"evt_1","type":"checkout.session.completed","created":1,"livemode":false,"data":{"object":{"id":"cs_1","mode":"payment"}}}"#,
            #"{"id":"evt_1","type":"customer.subscription.updated","created":1,"livemode":false,"data":{"object":{"id":"sub_1","status":7}}}"#,
            #"{"id":"evt_1","type":"charge.refunded","created":1,"livemode":false,"data":{"object":null}}"#
        ])
    func malformed(_ json: String) {
        #expect { _ = try StripeEvent(json: Array(json.utf8)) } throws: { ($0 as? StripeError)?.decodingError != nil }
    }

    @Test("A decoding error names the missing field")
    func decodingErrorNamesField() {
        let json =
            #"{"id":"evt_1","type":"checkout.session.completed","created":1,"livemode":false,"data":{"object":{"id":"cs_1","mode":"payment","status":"open","created":1,"livemode":false}}}"#
        do {
            _ = try StripeEvent(json: Array(json.utf8))
            Issue.record("decoded a session without payment_status")
        } catch StripeError.decoding(let error) {
            #expect(error.reason.contains("payment_status"))
            #expect(error.what == "checkout.session.completed event")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}
