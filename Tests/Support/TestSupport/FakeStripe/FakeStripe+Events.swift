import Foundation
import HTTPCore
import HTTPRouting

extension FakeStripe {
    /// A charge the fake made when a payment succeeded. `paidAt` is its `created`: a Charge's
    /// `created` never moves, whatever happens to it later.
    public struct Charge: Sendable {
        public var id: String
        public var paymentIntentID: String?
        public var invoiceID: String?
        public var customerID: String
        /// What was paid, tax included (smallest unit).
        public var amount: Int
        /// The tax in `amount`.
        public var tax: Int = 0
        public var paidAt: Date
        /// Each refund: its id, amount and when it was made.
        public var refunds: [(id: String, amount: Int, created: Date)] = []
        public var dispute: (id: String, status: String, openedAt: Date)?

        public var amountRefunded: Int { refunds.reduce(0) { $0 + $1.amount } }
    }

    /// An event as Stripe records it: `created` is when the change happened; `body` the whole
    /// event JSON, exactly what a webhook delivery and `GET /v1/events` carry.
    public struct Event: Sendable {
        public let id: String
        public let type: String
        public let created: Date
        public let body: [UInt8]

        /// `data.object` of the event.
        public var object: [String: Any] {
            let event = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
            return (event?["data"] as? [String: Any])?["object"] as? [String: Any] ?? [:]
        }
    }

    /// The price of every plan, in cents (USD), before tax.
    public static let unitAmount = 999

    /// Adds tax to every later checkout, invoice and charge: `basisPoints` hundredths of a
    /// percent of the price (1900 for 19% VAT), as Stripe Tax reports it (`total_details.amount_tax`,
    /// `total_excluding_tax`).
    public func setTax(basisPoints: Int) {
        core.state.withLock { $0.taxBasisPoints = basisPoints }
    }

    /// Every event the fake recorded, oldest first.
    public var events: [Event] { core.state.withLock { $0.events } }

    /// Fault injection: records an event of `type` around `object` as given, now, for a shape
    /// the fake would not make itself (an object rendered at an API version Tollgate cannot read).
    @discardableResult
    public func recordEvent(_ type: String, object: [String: Any]) -> Event {
        let now = core.wholeSecondsNow()
        return core.state.withLock { $0.record(type, object, at: now) }
    }

    /// The charge that paid payment intent `id`.
    public func charge(paymentIntentID id: String) -> Charge? {
        core.state.withLock { state in state.chargeOfIntent[id].flatMap { state.charges[$0] } }
    }

    /// The charge that paid invoice `id`.
    public func charge(invoiceID id: String) -> Charge? {
        core.state.withLock { state in state.charges.values.first { $0.invoiceID == id } }
    }

    /// The webhook delivery of `event`: its bytes and a `Stripe-Signature` made at `signedAt`
    /// (default: the event's `created`; Stripe signs each attempt anew).
    public func delivery(of event: Event, signedAt: Date? = nil, secret: String? = nil) -> (body: [UInt8], signatureHeader: String) {
        let timestamp = FakeStripeJSON.seconds(signedAt ?? event.created)
        return (event.body, Self.signatureHeader(body: event.body, timestamp: timestamp, secret: secret ?? webhookSecret))
    }

    /// Refunds the charge of payment intent `paymentIntentID` (or invoice `invoiceID`), `amount`
    /// cents (default: what is left). Records `charge.refunded` as Stripe sends it: the Charge,
    /// whose `created` is still when it was paid, with `amount_refunded`, `refunded` and the
    /// refund (its own `created` now) in `refunds.data`.
    /// - Throws: `ControlError` for an unknown or fully refunded charge.
    @discardableResult
    public func refund(paymentIntentID: String? = nil, invoiceID: String? = nil, amount: Int? = nil) throws -> Event {
        try core.state.withLock { state in
            let id =
                paymentIntentID.flatMap { state.chargeOfIntent[$0] }
                ?? invoiceID.flatMap { invoice in state.charges.values.first { $0.invoiceID == invoice }?.id }
            guard let id, var charge = state.charges[id] else {
                throw ControlError(description: "no charge for \(paymentIntentID ?? invoiceID ?? "?")")
            }
            let left = charge.amount - charge.amountRefunded
            guard left > 0 else { throw ControlError(description: "charge \(id) is already refunded") }
            let now = core.wholeSecondsNow()
            charge.refunds.append(("re_test_\(state.nextSuffix())", min(amount ?? left, left), now))
            state.charges[id] = charge
            return state.record("charge.refunded", FakeStripeJSON.charge(charge), at: now)
        }
    }

    /// A chargeback on the charge of `paymentIntentID` closes with `status` (`lost` or `won`):
    /// `charge.dispute.closed`, whose Dispute keeps the `created` of when it was opened (`openedAt`).
    /// - Throws: `ControlError` for an unknown charge.
    @discardableResult
    public func closeDispute(paymentIntentID: String, status: String = "lost", openedAt: Date? = nil) throws -> Event {
        try core.state.withLock { state in
            guard let id = state.chargeOfIntent[paymentIntentID], var charge = state.charges[id] else {
                throw ControlError(description: "no charge for \(paymentIntentID)")
            }
            let now = core.wholeSecondsNow()
            let dispute = (id: "dp_test_\(state.nextSuffix())", status: status, openedAt: openedAt ?? now)
            charge.dispute = dispute
            state.charges[id] = charge
            return state.record("charge.dispute.closed", FakeStripeJSON.dispute(charge), at: now)
        }
    }

    /// The next period of subscription `id` is paid, as Stripe does at a renewal: a new invoice
    /// and charge, the period moved on, then `invoice.paid` and `customer.subscription.updated`.
    /// - Throws: `ControlError` for an unknown or ended subscription.
    @discardableResult
    public func renewSubscription(id: String, periodEnd: Date? = nil) throws -> (invoicePaid: Event, updated: Event) {
        try core.state.withLock { state in
            guard var subscription = state.subscriptions[id], subscription.status != "canceled" else {
                throw ControlError(description: "no running subscription \(id)")
            }
            let now = core.wholeSecondsNow()
            subscription.currentPeriodStart = subscription.currentPeriodEnd
            subscription.currentPeriodEnd = periodEnd ?? subscription.currentPeriodEnd.addingTimeInterval(30 * 86_400)
            subscription.status = "active"
            state.subscriptions[id] = subscription
            let invoiceID = "in_test_\(state.nextSuffix())"
            let charge = state.charge(customerID: subscription.customerID, invoiceID: invoiceID, paidAt: now)
            let email: String? = nil
            let paid = state.record(
                "invoice.paid", FakeStripeJSON.invoice(id: invoiceID, subscription: subscription, charge: charge, email: email), at: now)
            return (paid, state.record("customer.subscription.updated", FakeStripeJSON.subscription(subscription), at: now))
        }
    }
}

extension FakeStripe.Core.State {
    /// Records an event of `type` around `object`, created at `date`, and returns it.
    @discardableResult
    mutating func record(_ type: String, _ object: [String: Any], at date: Date) -> FakeStripe.Event {
        let id = "evt_test_" + nextSuffix()
        let event: [String: Any] = [
            "id": id, "object": "event", "api_version": "2025-03-31.basil", "created": FakeStripeJSON.seconds(date),
            "data": ["object": object], "livemode": (object["livemode"] as? Bool) ?? false, "pending_webhooks": 1,
            "request": ["id": NSNull(), "idempotency_key": NSNull()] as [String: Any], "type": type
        ]
        let recorded = FakeStripe.Event(id: id, type: type, created: date, body: FakeStripeJSON.data(event))
        events.append(recorded)
        return recorded
    }

    /// A succeeded charge paying an invoice or a payment intent (an invoice's payment gets one).
    mutating func charge(
        customerID: String, paymentIntentID: String? = nil, invoiceID: String? = nil, paidAt: Date, subtotal: Int = FakeStripe.unitAmount
    ) -> FakeStripe.Charge {
        let intent = paymentIntentID ?? "pi_test_\(nextSuffix())"
        let tax = tax(on: subtotal)
        let charge = FakeStripe.Charge(
            id: "ch_test_\(nextSuffix())", paymentIntentID: intent, invoiceID: invoiceID, customerID: customerID, amount: subtotal + tax,
            tax: tax, paidAt: paidAt)
        charges[charge.id] = charge
        chargeOfIntent[intent] = charge.id
        return charge
    }
}

extension FakeStripe.Core {
    /// `GET /v1/events`: `created[gte|gt|lte|lt]`, `type` or `types[]`, `limit` (1–100, default
    /// 10), `starting_after`; newest first, as Stripe lists.
    func listEvents(_ request: HTTPRequest) -> HTTPResponse {
        let items = request.queryItems
        func value(_ name: String) -> String? { items.first { $0.name == name }?.value }
        func bound(_ name: String) -> Int? { value("created[\(name)]").flatMap(Int.init) }
        let limit = value("limit").flatMap(Int.init) ?? 10
        guard (1...100).contains(limit) else {
            return respond(FakeStripeJSON.error(type: "invalid_request_error", message: "Invalid integer: \(limit)", param: "limit"), status: 400)
        }
        let types = Set(items.filter { $0.name == "types[]" }.map(\.value) + (value("type").map { [$0] } ?? []))
        let (gte, gt, lte, lt) = (bound("gte"), bound("gt"), bound("lte"), bound("lt"))
        var matching =
            state.withLock { $0.events }.reversed().filter { event in
                let created = FakeStripeJSON.seconds(event.created)
                return (types.isEmpty || types.contains(event.type)) && gte.map { created >= $0 } ?? true && gt.map { created > $0 } ?? true
                    && lte.map { created <= $0 } ?? true && lt.map { created < $0 } ?? true
            } as [FakeStripe.Event]
        if let after = value("starting_after") {
            guard let index = matching.firstIndex(where: { $0.id == after }) else {
                return respond(
                    FakeStripeJSON.error(
                        type: "invalid_request_error", message: "No such event: '\(after)'", code: "resource_missing", param: "starting_after"),
                    status: 400)
            }
            matching = Array(matching[(index + 1)...])
        }
        // The page is written from the events' own bytes (what the webhooks carried), not re-encoded.
        var body = Array(#"{"object":"list","data":["#.utf8)
        for (index, event) in matching.prefix(limit).enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body.append(contentsOf: event.body)
        }
        body.append(contentsOf: Array(#"],"has_more":\#(matching.count > limit),"url":"/v1/events"}"#.utf8))
        return HTTPResponse(
            status: .ok,
            headers: [
                "Content-Type": "application/json", "Request-Id": "req_" + state.withLock { $0.nextSuffix() }, "Stripe-Version": "2025-03-31.basil"
            ],
            body: body)
    }

    /// `GET /v1/invoice_payments`: by `invoice`, or by `payment[type]=payment_intent` and
    /// `payment[payment_intent]`; one `invoice_payment` per charge that paid an invoice.
    func listInvoicePayments(_ request: HTTPRequest) -> HTTPResponse {
        let items = request.queryItems
        func value(_ name: String) -> String? { items.first { $0.name == name }?.value }
        let intent = value("payment[payment_intent]")
        let invoice = value("invoice")
        if intent != nil, value("payment[type]") != "payment_intent" {
            return respond(
                FakeStripeJSON.error(type: "invalid_request_error", message: "Missing required param: payment[type].", param: "payment[type]"),
                status: 400)
        }
        let charges = state.withLock { Array($0.charges.values) }.filter { charge in
            charge.invoiceID != nil && (intent == nil || charge.paymentIntentID == intent) && (invoice == nil || charge.invoiceID == invoice)
        }.sorted { $0.paidAt > $1.paidAt }
        let data = charges.map { charge -> [String: Any] in
            [
                "id": "inpay_" + charge.id.dropFirst(3), "object": "invoice_payment", "amount_paid": charge.amount,
                "amount_requested": charge.amount, "created": FakeStripeJSON.seconds(charge.paidAt), "currency": "usd",
                "invoice": charge.invoiceID ?? "", "is_default": true, "livemode": false, "status": "paid",
                "payment": ["type": "payment_intent", "payment_intent": FakeStripeJSON.optional(charge.paymentIntentID)] as [String: Any],
                "status_transitions": ["canceled_at": NSNull(), "paid_at": FakeStripeJSON.seconds(charge.paidAt)] as [String: Any]
            ]
        }
        return respond(["object": "list", "data": data, "has_more": false, "url": "/v1/invoice_payments"] as [String: Any], status: 200)
    }

    /// `GET /v1/charges/{id}`.
    func retrieveCharge(id: String) -> HTTPResponse {
        guard let charge = state.withLock({ $0.charges[id] }) else {
            return respond(
                FakeStripeJSON.error(type: "invalid_request_error", message: "No such charge: '\(id)'", code: "resource_missing", param: "id"),
                status: 404)
        }
        return respond(FakeStripeJSON.charge(charge), status: 200)
    }
}

extension FakeStripeJSON {
    /// A Charge as Stripe renders it (`vectors/stripe/fixture_charge.json`): `created` when paid.
    static func charge(_ charge: FakeStripe.Charge) -> [String: Any] {
        let refunds = charge.refunds.map { refund -> [String: Any] in
            [
                "id": refund.id, "object": "refund", "amount": refund.amount, "charge": charge.id, "created": seconds(refund.created),
                "currency": "usd", "payment_intent": optional(charge.paymentIntentID), "status": "succeeded", "reason": NSNull(),
                "metadata": [String: String]()
            ]
        }
        return [
            "id": charge.id, "object": "charge", "amount": charge.amount, "amount_captured": charge.amount,
            "amount_refunded": charge.amountRefunded, "refunded": charge.amountRefunded >= charge.amount, "captured": true, "paid": true,
            "status": "succeeded", "currency": "usd", "customer": charge.customerID, "payment_intent": optional(charge.paymentIntentID),
            "disputed": charge.dispute != nil, "created": seconds(charge.paidAt), "livemode": false, "metadata": [String: String](),
            "refunds": ["object": "list", "data": refunds, "has_more": false, "url": "/v1/charges/\(charge.id)/refunds"] as [String: Any]
        ]
    }

    /// The Dispute of `charge` (`vectors/stripe` shape): `created` when it was opened.
    static func dispute(_ charge: FakeStripe.Charge) -> [String: Any] {
        let dispute = charge.dispute ?? (id: "dp_test", status: "needs_response", openedAt: charge.paidAt)
        return [
            "id": dispute.id, "object": "dispute", "amount": charge.amount, "charge": charge.id, "currency": "usd",
            "payment_intent": optional(charge.paymentIntentID), "reason": "fraudulent", "status": dispute.status,
            "created": seconds(dispute.openedAt), "is_charge_refundable": false, "livemode": false, "metadata": [String: String](),
            "balance_transactions": [Any]()
        ]
    }

    /// A paid invoice of `subscription`'s current period (API 2025-03-31: the subscription under
    /// `parent.subscription_details`); `created` is when it was drafted: when the billing cycle
    /// ran, just before its charge was paid.
    /// Its `payments` are not included (Stripe includes them only when expanded): which payment
    /// paid it is read from `GET /v1/invoice_payments`.
    static func invoice(id: String, subscription: FakeStripe.Subscription, charge: FakeStripe.Charge, email: String?) -> [String: Any] {
        let start = seconds(subscription.currentPeriodStart)
        let drafted = seconds(charge.paidAt)
        let line: [String: Any] = [
            "id": "il_" + id.dropFirst(3), "object": "line_item", "invoice": id,
            "period": ["start": start, "end": seconds(subscription.currentPeriodEnd)], "quantity": 1
        ]
        return [
            "id": id, "object": "invoice", "status": "paid", "customer": subscription.customerID, "customer_email": optional(email),
            "amount_paid": charge.amount, "currency": "usd", "billing_reason": "subscription_cycle", "created": drafted,
            "subtotal": charge.amount - charge.tax, "total_excluding_tax": charge.amount - charge.tax, "total": charge.amount,
            "period_start": start, "period_end": start, "livemode": subscription.livemode,
            "parent": [
                "type": "subscription_details", "quote_details": NSNull(),
                "subscription_details": ["subscription": subscription.id, "metadata": subscription.metadata] as [String: Any]
            ] as [String: Any],
            "lines": ["object": "list", "has_more": false, "data": [line], "url": "/v1/invoices/\(id)/lines"] as [String: Any]
        ]
    }
}
