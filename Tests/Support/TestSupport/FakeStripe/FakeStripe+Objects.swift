import StripeSimulator
import Foundation

extension FakeStripe {
    /// The product (`prod_...`) a price belongs to: each of the fake's prices has its own
    /// product, named after it (`price_monthly` → `prod_monthly`), as a Price's `product` is an id.
    public static func product(ofPrice priceID: String) -> String {
        "prod_" + (priceID.hasPrefix("price_") ? String(priceID.dropFirst(6)) : priceID)
    }

    /// A Checkout Session the fake created, with what it received.
    public struct Session: Sendable {
        public var id: String
        /// `https://checkout.stripe.com/c/pay/cs_test_...`.
        public var url: String
        /// `subscription`, `payment` or `setup`.
        public var mode: String
        /// `open`, `complete` or `expired`.
        public var status: String
        /// `unpaid`, `paid` or `no_payment_required`.
        public var paymentStatus: String
        public var priceID: String
        public var quantity: Int
        /// `amount_subtotal`: the price (999 cents) times the quantity, before tax.
        public var amountSubtotal: Int
        /// `total_details.amount_tax` (`FakeStripe.setTax(basisPoints:)`); `amount_total` adds it.
        public var amountTax: Int
        public var successURL: String
        public var cancelURL: String?
        public var clientReferenceID: String?
        /// `customer_email` as sent.
        public var customerEmail: String?
        /// `customer_details.email`, set when the buyer completes the page.
        public var email: String?
        public var customerID: String?
        public var subscriptionID: String?
        public var paymentIntentID: String?
        public var invoiceID: String?
        public var metadata: [String: String]
        /// `subscription_data[metadata]` as sent.
        public var subscriptionMetadata: [String: String]
        /// `payment_intent_data[metadata]` as sent.
        public var paymentIntentMetadata: [String: String]
        public var allowPromotionCodes: Bool?
        public var created: Date
        public var livemode: Bool
        /// Every parameter received, decoded with Stripe's nested rules.
        public var parameters: StripeFormValue
        /// The form body exactly as received.
        public var rawBody: String
        /// The `Idempotency-Key` it was created with.
        public var idempotencyKey: String?
    }

    /// A subscription the fake holds.
    public struct Subscription: Sendable {
        /// Where the period end is written in the JSON.
        public enum PeriodEndField: Sendable {
            /// `items.data[].current_period_end` (API 2025-03-31 and later; the default).
            case item
            /// Top-level `current_period_end` (older API versions).
            case topLevel
        }

        public var id: String
        /// `active`, `trialing`, `past_due`, `unpaid`, `canceled`, `incomplete`, `incomplete_expired`, `paused`.
        public var status: String
        public var customerID: String
        public var priceID: String
        public var metadata: [String: String]
        public var created: Date
        public var currentPeriodStart: Date
        public var currentPeriodEnd: Date
        public var cancelAtPeriodEnd: Bool
        public var canceledAt: Date?
        public var endedAt: Date?
        public var livemode: Bool
        public var periodEndField: PeriodEndField

        /// A subscription to install with `putSubscription(_:)`.
        public init(
            id: String, status: String = "active", customerID: String = "cus_test_1", priceID: String = "price_123",
            metadata: [String: String] = [:], created: Date, currentPeriodStart: Date? = nil, currentPeriodEnd: Date,
            cancelAtPeriodEnd: Bool = false, canceledAt: Date? = nil, endedAt: Date? = nil, livemode: Bool = false,
            periodEndField: PeriodEndField = .item
        ) {
            self.id = id
            self.status = status
            self.customerID = customerID
            self.priceID = priceID
            self.metadata = metadata
            self.created = created
            self.currentPeriodStart = currentPeriodStart ?? created
            self.currentPeriodEnd = currentPeriodEnd
            self.cancelAtPeriodEnd = cancelAtPeriodEnd
            self.canceledAt = canceledAt
            self.endedAt = endedAt
            self.livemode = livemode
            self.periodEndField = periodEndField
        }
    }
}

/// Stripe JSON renderings of the fake's objects (shapes of `vectors/stripe/fixture_*.json`).
enum FakeStripeJSON {
    static func seconds(_ date: Date) -> Int { Int(date.timeIntervalSince1970.rounded(.down)) }

    static func optional(_ value: (any Sendable)?) -> Any { value.map { $0 as Any } ?? NSNull() }

    static func session(_ session: FakeStripe.Session, expandedSubscription: [String: Any]? = nil, lineItems: Bool = false) -> [String: Any] {
        let details: Any = session.email.map { ["email": $0, "name": NSNull()] as [String: Any] } ?? NSNull()
        let subscription: Any = expandedSubscription ?? optional(session.subscriptionID)
        var object: [String: Any] = [
            "id": session.id,
            "object": "checkout.session",
            "mode": session.mode,
            "status": session.status,
            "payment_status": session.paymentStatus,
            "url": session.status == "open" ? session.url : NSNull(),
            "customer": optional(session.customerID),
            "customer_details": details,
            "customer_email": optional(session.customerEmail),
            "subscription": subscription,
            "payment_intent": optional(session.paymentIntentID),
            "invoice": optional(session.invoiceID),
            "client_reference_id": optional(session.clientReferenceID),
            "amount_subtotal": session.amountSubtotal, "amount_total": session.amountSubtotal + session.amountTax, "currency": "usd",
            "total_details": ["amount_discount": 0, "amount_shipping": 0, "amount_tax": session.amountTax] as [String: Any],
            "metadata": session.metadata,
            "success_url": session.successURL,
            "cancel_url": optional(session.cancelURL),
            "allow_promotion_codes": optional(session.allowPromotionCodes),
            "created": seconds(session.created),
            "expires_at": seconds(session.created) + 86_400,
            "livemode": session.livemode
        ]
        if lineItems {
            // Stripe expands line_items as a list of line_item objects, each with its price.
            let item: [String: Any] = [
                "id": "li_" + session.id.dropFirst(3), "object": "item", "quantity": session.quantity,
                "price": ["id": session.priceID, "object": "price", "product": FakeStripe.product(ofPrice: session.priceID)] as [String: Any]
            ]
            object["line_items"] =
                [
                    "object": "list", "data": [item], "has_more": false, "url": "/v1/checkout/sessions/\(session.id)/line_items"
                ] as [String: Any]
        }
        return object
    }

    static func subscription(_ subscription: FakeStripe.Subscription) -> [String: Any] {
        var item: [String: Any] = [
            "id": "si_" + subscription.id.dropFirst(4),
            "object": "subscription_item",
            "quantity": 1,
            "subscription": subscription.id,
            "price": [
                "id": subscription.priceID, "object": "price", "product": FakeStripe.product(ofPrice: subscription.priceID), "type": "recurring",
                "recurring": ["interval": "month", "interval_count": 1]
            ] as [String: Any]
        ]
        var object: [String: Any] = [
            "id": subscription.id,
            "object": "subscription",
            "status": subscription.status,
            "customer": subscription.customerID,
            "cancel_at_period_end": subscription.cancelAtPeriodEnd,
            "cancel_at": subscription.cancelAtPeriodEnd ? seconds(subscription.currentPeriodEnd) : NSNull(),
            "canceled_at": optional(subscription.canceledAt.map(seconds)),
            "ended_at": optional(subscription.endedAt.map(seconds)),
            "created": seconds(subscription.created),
            "start_date": seconds(subscription.created),
            "metadata": subscription.metadata,
            "livemode": subscription.livemode
        ]
        switch subscription.periodEndField {
        case .item:
            item["current_period_start"] = seconds(subscription.currentPeriodStart)
            item["current_period_end"] = seconds(subscription.currentPeriodEnd)
        case .topLevel:
            object["current_period_start"] = seconds(subscription.currentPeriodStart)
            object["current_period_end"] = seconds(subscription.currentPeriodEnd)
        }
        object["items"] =
            [
                "object": "list", "has_more": false, "url": "/v1/subscription_items?subscription=\(subscription.id)",
                "data": [item]
            ] as [String: Any]
        return object
    }

    static func error(type: String, message: String, code: String? = nil, param: String? = nil) -> [String: Any] {
        var inner: [String: Any] = ["type": type, "message": message]
        if let code {
            inner["code"] = code
            inner["doc_url"] = "https://stripe.com/docs/error-codes/" + code.replacingOccurrences(of: "_", with: "-")
        }
        if let param { inner["param"] = param }
        return ["error": inner]
    }

    static func data(_ object: [String: Any]) -> [UInt8] {
        // The fake only serializes dictionaries it built from strings, numbers, booleans and NSNull.
        (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])).map(Array.init) ?? Array("{}".utf8)
    }
}
