import Crypto
import Foundation
import JSON

/// Stripe's JSON renderings of the simulator's objects (API version 2025-03-31.basil: period
/// ends on subscription items, an invoice's subscription under `parent.subscription_details`).
enum SimulatorJSON {
    static func seconds(_ date: Date) -> JSONValue { .integer(Int64(date.timeIntervalSince1970.rounded(.down))) }

    static func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }

    static func map(_ values: [String: String]) -> JSONValue {
        .object(values.sorted { $0.key < $1.key }.map { (key: $0.key, value: .string($0.value)) })
    }

    static func list(_ items: [JSONValue], url: String) -> JSONValue {
        ["object": "list", "data": .array(items), "has_more": false, "url": .string(url)]
    }

    static func session(_ session: SimulatedSession, hostedURL: String, subscription: JSONValue? = nil) -> JSONValue {
        let details: JSONValue = session.email.map { ["email": .string($0), "name": .null] } ?? .null
        return [
            "id": .string(session.id), "object": "checkout.session",
            "allow_promotion_codes": session.allowPromotionCodes.map(JSONValue.bool) ?? .null,
            "cancel_url": text(session.cancelURL), "client_reference_id": text(session.clientReferenceID),
            "created": seconds(session.created), "customer": text(session.customerID), "customer_details": details,
            "customer_email": text(session.customerEmail), "expires_at": seconds(session.created.addingTimeInterval(86_400)),
            "invoice": text(session.invoiceID), "livemode": false, "locale": text(session.locale), "metadata": map(session.metadata),
            "mode": .string(session.mode),
            "payment_intent": text(session.paymentIntentID), "payment_status": .string(session.paymentStatus),
            "status": .string(session.status), "subscription": subscription ?? text(session.subscriptionID),
            "success_url": .string(session.successURL), "url": session.status == "open" ? .string(hostedURL) : .null
        ]
    }

    static func subscription(_ subscription: SimulatedSubscription) -> JSONValue {
        let item: JSONValue = [
            "id": .string("si_" + subscription.id.dropFirst(4)), "object": "subscription_item",
            "current_period_end": seconds(subscription.periodEnd), "current_period_start": seconds(subscription.periodStart),
            "price": [
                "id": .string(subscription.priceID), "object": "price", "product": "prod_demo", "type": "recurring",
                "recurring": ["interval": "month", "interval_count": 1]
            ],
            "quantity": 1, "subscription": .string(subscription.id)
        ]
        return [
            "id": .string(subscription.id), "object": "subscription",
            "cancel_at": .null, "cancel_at_period_end": false, "canceled_at": subscription.canceledAt.map(seconds) ?? .null,
            "created": seconds(subscription.created), "customer": .string(subscription.customerID),
            "ended_at": subscription.endedAt.map(seconds) ?? .null,
            "items": list([item], url: "/v1/subscription_items?subscription=\(subscription.id)"),
            "latest_invoice": text(subscription.latestInvoiceID), "livemode": false, "metadata": map(subscription.metadata),
            "start_date": seconds(subscription.created), "status": .string(subscription.status)
        ]
    }

    static func customer(_ customer: SimulatedCustomer) -> JSONValue {
        [
            "id": .string(customer.id), "object": "customer", "created": seconds(customer.created), "email": .string(customer.email),
            "livemode": false, "metadata": [:]
        ]
    }

    static func paymentIntent(_ intent: SimulatedPaymentIntent) -> JSONValue {
        [
            "id": .string(intent.id), "object": "payment_intent", "amount": .integer(Int64(intent.amount)),
            "amount_received": .integer(Int64(intent.amount)), "created": seconds(intent.created), "currency": "usd",
            "customer": .string(intent.customerID), "latest_charge": .string(intent.chargeID), "livemode": false,
            "metadata": map(intent.metadata), "status": "succeeded"
        ]
    }

    /// A paid invoice of `subscription`'s current period, paid by `intent`. Its `payments` are not
    /// in it (Stripe includes them only when expanded): `GET /v1/invoice_payments` links them.
    static func paidInvoice(_ subscription: SimulatedSubscription, intent: SimulatedPaymentIntent, email: String?, reason: String) -> JSONValue {
        let invoiceID = JSONValue.string(intent.invoiceID ?? "")
        let period: JSONValue = ["start": seconds(subscription.periodStart), "end": seconds(subscription.periodEnd)]
        return [
            "id": invoiceID, "object": "invoice", "amount_paid": .integer(Int64(intent.amount)), "billing_reason": .string(reason),
            "created": seconds(intent.created), "currency": "usd", "customer": .string(subscription.customerID),
            "customer_email": text(email),
            "lines": list(
                [["id": .string(SimulatorState.newID("il_")), "object": "line_item", "invoice": invoiceID, "period": period, "quantity": 1]],
                url: "/v1/invoices/\(intent.invoiceID ?? "")/lines"),
            "livemode": false,
            "parent": [
                "type": "subscription_details", "quote_details": .null,
                "subscription_details": ["metadata": map(subscription.metadata), "subscription": .string(subscription.id)]
            ],
            "period_end": seconds(subscription.periodStart), "period_start": seconds(subscription.periodStart), "status": "paid"
        ]
    }

    /// The charge of `intent`: `created` is when it was paid, whatever happened to it since; a
    /// refund shows in `amount_refunded`, `refunded` and `refunds.data` (with the refund's own time).
    static func charge(_ intent: SimulatedPaymentIntent) -> JSONValue {
        let refunds: [JSONValue] =
            intent.refund.map { refund in
                [
                    [
                        "id": .string(refund.id), "object": "refund", "amount": .integer(Int64(intent.amount)), "charge": .string(intent.chargeID),
                        "created": seconds(refund.created), "currency": "usd", "payment_intent": .string(intent.id), "status": "succeeded"
                    ]
                ]
            } ?? []
        let refunded = intent.refund == nil ? 0 : intent.amount
        return [
            "id": .string(intent.chargeID), "object": "charge", "amount": .integer(Int64(intent.amount)),
            "amount_captured": .integer(Int64(intent.amount)), "amount_refunded": .integer(Int64(refunded)), "captured": true,
            "created": seconds(intent.created), "currency": "usd", "customer": .string(intent.customerID), "livemode": false, "paid": true,
            "payment_intent": .string(intent.id), "refunded": .bool(intent.refund != nil),
            "refunds": list(refunds, url: "/v1/charges/\(intent.chargeID)/refunds"), "status": "succeeded"
        ]
    }

    /// The `invoice_payment` linking `intent` to the invoice it paid.
    static func invoicePayment(_ intent: SimulatedPaymentIntent) -> JSONValue {
        [
            "id": .string("inpay_" + intent.id.dropFirst(3)), "object": "invoice_payment", "amount_paid": .integer(Int64(intent.amount)),
            "amount_requested": .integer(Int64(intent.amount)), "created": seconds(intent.created), "currency": "usd",
            "invoice": text(intent.invoiceID), "is_default": true, "livemode": false, "status": "paid",
            "payment": ["type": "payment_intent", "payment_intent": .string(intent.id)],
            "status_transitions": ["canceled_at": .null, "paid_at": seconds(intent.created)]
        ]
    }

    /// Stripe's error body.
    static func error(_ type: String, _ message: String, code: String? = nil, param: String? = nil) -> JSONValue {
        var inner: [(key: String, value: JSONValue)] = [("type", .string(type)), ("message", .string(message))]
        if let code {
            inner.append(("code", .string(code)))
            inner.append(("doc_url", .string("https://stripe.com/docs/error-codes/" + code.replacingOccurrences(of: "_", with: "-"))))
        }
        if let param { inner.append(("param", .string(param))) }
        return ["error": .object(inner)]
    }
}
