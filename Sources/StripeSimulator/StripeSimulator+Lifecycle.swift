import Crypto
import Foundation
import JSON

/// What happens to the simulator's objects, and the events Stripe sends for each change.
extension StripeSimulator {
    /// The buyer completed the page: a customer, and in subscription mode a subscription (active
    /// when paid; created when a delayed payment succeeds), or a payment intent.
    func complete(sessionID: String, email: String, paid: Bool) -> [SimulatorEvent] {
        let now = wholeSecondsNow()
        return state.withLock { state -> [SimulatorEvent] in
            guard var session = state.sessions[sessionID], session.status == "open" else { return [] }
            session.status = "complete"
            session.email = email
            session.customerID = state.customer(email: email, now: now).id
            state.sessions[sessionID] = session
            guard paid else {
                return [SimulatorEvent("checkout.session.completed", SimulatorJSON.session(session, hostedURL: hostedURL(session.id)), at: now)]
            }
            return settle(&state, sessionID: sessionID, now: now)
        }
    }

    /// A delayed payment succeeds: the session becomes paid and what paying creates is created.
    func succeedLaterPayment(sessionID: String) -> [SimulatorEvent] {
        let now = wholeSecondsNow()
        return state.withLock { state in
            guard let session = state.sessions[sessionID], session.status == "complete", session.paymentStatus == "unpaid" else { return [] }
            return settle(&state, sessionID: sessionID, now: now, eventType: "checkout.session.async_payment_succeeded")
        }
    }

    /// Marks a completed session paid, creates its subscription or payment, and lists the events
    /// in the order Tollgate handles best (it accepts any order, as with Stripe).
    private func settle(
        _ state: inout SimulatorState, sessionID: String, now: Date, eventType: String = "checkout.session.completed"
    ) -> [SimulatorEvent] {
        guard var session = state.sessions[sessionID], let customerID = session.customerID else { return [] }
        session.paymentStatus = "paid"
        var later: [SimulatorEvent] = []
        if session.mode == "subscription" {
            let invoiceID = SimulatorState.newID("in_")
            var subscription = SimulatedSubscription(
                id: SimulatorState.newID("sub_"), status: "active", customerID: customerID, priceID: session.priceID,
                metadata: session.subscriptionMetadata, created: now, periodStart: now,
                periodEnd: now.addingTimeInterval(SimulatedSubscription.period), latestInvoiceID: invoiceID)
            let intent = state.paidIntent(customerID: customerID, invoiceID: invoiceID, metadata: [:], now: now)
            subscription.latestInvoiceID = invoiceID
            state.subscriptions[subscription.id] = subscription
            session.subscriptionID = subscription.id
            session.invoiceID = invoiceID
            later = [
                SimulatorEvent("customer.subscription.created", SimulatorJSON.subscription(subscription), at: now),
                SimulatorEvent(
                    "invoice.paid",
                    SimulatorJSON.paidInvoice(subscription, intent: intent, email: session.email, reason: "subscription_create"), at: now)
            ]
        } else {
            session.paymentIntentID = state.paidIntent(customerID: customerID, invoiceID: nil, metadata: session.paymentIntentMetadata, now: now).id
        }
        state.sessions[sessionID] = session
        return [SimulatorEvent(eventType, SimulatorJSON.session(session, hostedURL: hostedURL(session.id)), at: now)] + later
    }

    /// The next period of subscription `id` is paid: `invoice.paid` and `customer.subscription.updated`.
    /// - Throws: `APIFailure` (404) for an unknown subscription, (400) for an ended one.
    func renew(subscriptionID id: String) throws -> (subscription: SimulatedSubscription, events: [SimulatorEvent]) {
        let now = wholeSecondsNow()
        return try state.withLock { state in
            guard var subscription = state.subscriptions[id] else { throw APIFailure.missing("subscription", id) }
            guard subscription.status != "canceled" else {
                throw APIFailure(status: 400, body: SimulatorJSON.error("invalid_request_error", "This subscription is canceled and cannot renew."))
            }
            let invoiceID = SimulatorState.newID("in_")
            subscription.periodStart = subscription.periodEnd
            subscription.periodEnd = subscription.periodEnd.addingTimeInterval(SimulatedSubscription.period)
            subscription.status = "active"
            subscription.latestInvoiceID = invoiceID
            state.subscriptions[id] = subscription
            let intent = state.paidIntent(customerID: subscription.customerID, invoiceID: invoiceID, metadata: [:], now: now)
            let email = state.customers[subscription.customerID]?.email
            return (
                subscription,
                [
                    SimulatorEvent(
                        "invoice.paid", SimulatorJSON.paidInvoice(subscription, intent: intent, email: email, reason: "subscription_cycle"), at: now),
                    SimulatorEvent("customer.subscription.updated", SimulatorJSON.subscription(subscription), at: now)
                ]
            )
        }
    }

    /// Cancels subscription `id` at once: `customer.subscription.deleted`.
    /// - Throws: `APIFailure` (404) for an unknown subscription.
    func cancel(subscriptionID id: String) throws -> (subscription: SimulatedSubscription, events: [SimulatorEvent]) {
        let now = wholeSecondsNow()
        return try state.withLock { state in
            guard var subscription = state.subscriptions[id] else { throw APIFailure.missing("subscription", id) }
            subscription.status = "canceled"
            subscription.canceledAt = subscription.canceledAt ?? now
            subscription.endedAt = subscription.endedAt ?? now
            state.subscriptions[id] = subscription
            return (subscription, [SimulatorEvent("customer.subscription.deleted", SimulatorJSON.subscription(subscription), at: now)])
        }
    }

    /// Refunds payment intent `id` in full: `charge.refunded`.
    /// - Throws: `APIFailure` (404) for an unknown payment intent, (400) when already refunded.
    func refund(paymentIntentID id: String) throws -> (refundID: String, intent: SimulatedPaymentIntent, events: [SimulatorEvent]) {
        let now = wholeSecondsNow()
        return try state.withLock { state in
            guard var intent = state.paymentIntents[id] else { throw APIFailure.missing("payment_intent", id) }
            guard intent.refund == nil else {
                throw APIFailure(
                    status: 400,
                    body: SimulatorJSON.error(
                        "invalid_request_error", "Charge \(intent.chargeID) has already been refunded.", code: "charge_already_refunded"))
            }
            let refundID = SimulatorState.newID("re_")
            intent.refund = (refundID, now)
            state.paymentIntents[id] = intent
            return (refundID, intent, [SimulatorEvent("charge.refunded", SimulatorJSON.charge(intent), at: now)])
        }
    }
}

/// An event as Stripe records it: an id, the time the change happened (`created`), its type and
/// `data.object`. Sent as a webhook and listed by `GET /v1/events`, the same bytes both ways.
struct SimulatorEvent: Sendable {
    let id: String
    let type: String
    let created: Date
    let object: JSONValue

    init(_ type: String, _ object: JSONValue, at created: Date) {
        id = SimulatorState.newID("evt_")
        self.type = type
        self.created = created
        self.object = object
    }

    /// The event object (`vectors/stripe/fixture_event.json`'s shape).
    var json: JSONValue {
        .object([
            ("id", .string(id)), ("object", "event"), ("api_version", "2025-03-31.basil"), ("created", SimulatorJSON.seconds(created)),
            ("data", ["object": object]), ("livemode", false), ("pending_webhooks", 1),
            ("request", ["id": .null, "idempotency_key": .null]), ("type", .string(type))
        ])
    }
}
