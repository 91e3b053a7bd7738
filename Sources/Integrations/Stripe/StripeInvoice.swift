import Foundation

/// A Stripe Invoice (only the fields Tollgate uses), readable in both the current shape (API
/// 2025-03-31 and later: `parent.subscription_details.subscription`, `payments`) and the older
/// one (`subscription`, `payment_intent`).
public struct StripeInvoice: Sendable, Equatable {
    /// `in_...`.
    public var id: String
    /// `draft`, `open`, `paid`, `uncollectible`, `void`.
    public var status: String?
    public var customerID: String?
    public var customerEmail: String?
    /// `parent.subscription_details.subscription`, else `subscription`.
    public var subscriptionID: String?
    /// `parent.subscription_details.metadata`: the subscription's metadata when the invoice was made.
    public var subscriptionMetadata: [String: String]
    /// `payment_intent` (older versions), else the first `payments.data[].payment.payment_intent`.
    public var paymentIntentID: String?
    /// The earliest `lines.data[].period.start`; nil when the invoice lists no lines.
    public var periodStart: Date?
    /// The latest `lines.data[].period.end`; nil when the invoice lists no lines.
    public var periodEnd: Date?
    /// `subscription_create`, `subscription_cycle`, `manual`, ...
    public var billingReason: String?
    /// In the currency's smallest unit.
    public var amountPaid: Int?
    /// `total_excluding_tax`: the invoice's total before tax (after discounts), smallest unit.
    public var totalExcludingTax: Int?
    /// `total`: with tax, smallest unit. `total - totalExcludingTax` is the tax.
    public var total: Int?
    public var currency: String?
    public var created: Date?
    public var livemode: Bool

    /// An invoice with every field given (tests, fakes).
    public init(
        id: String, status: String? = nil, customerID: String? = nil, customerEmail: String? = nil,
        subscriptionID: String? = nil, subscriptionMetadata: [String: String] = [:], paymentIntentID: String? = nil,
        periodEnd: Date? = nil, billingReason: String? = nil, amountPaid: Int? = nil, currency: String? = nil,
        created: Date? = nil, livemode: Bool = false
    ) {
        self.id = id
        self.status = status
        self.customerID = customerID
        self.customerEmail = customerEmail
        self.subscriptionID = subscriptionID
        self.subscriptionMetadata = subscriptionMetadata
        self.paymentIntentID = paymentIntentID
        self.periodEnd = periodEnd
        self.billingReason = billingReason
        self.amountPaid = amountPaid
        self.currency = currency
        self.created = created
        self.livemode = livemode
    }

    /// Decodes an `invoice` object.
    /// - Throws: `StripeError.decoding` when the JSON is malformed or a required field is missing.
    public init(json: [UInt8]) throws {
        self = try StripeJSON.decode(Self.self, from: json, what: "invoice")
    }
}

extension StripeInvoice: Decodable {
    private enum Keys: String, CodingKey {
        case id, status, customer, subscription, parent, lines, payments, currency, created, livemode
        case customerEmail = "customer_email"
        case paymentIntent = "payment_intent"
        case billingReason = "billing_reason"
        case amountPaid = "amount_paid"
        case totalExcludingTax = "total_excluding_tax"
        case total
    }

    private struct Parent: Decodable {
        struct Details: Decodable {
            let subscription: StripeExpandableID?
            let metadata: [String: String]?
        }
        let subscriptionDetails: Details?
        enum CodingKeys: String, CodingKey { case subscriptionDetails = "subscription_details" }
    }

    private struct Line: Decodable {
        struct Period: Decodable {
            let start: Int64?
            let end: Int64?
        }
        let period: Period?
    }

    private struct Payment: Decodable {
        struct Inner: Decodable {
            let paymentIntent: StripeExpandableID?
            enum CodingKeys: String, CodingKey { case paymentIntent = "payment_intent" }
        }
        let payment: Inner?
    }

    /// Decodes the wire form (`snake_case`, Unix-second timestamps).
    /// - Throws: `DecodingError` for a missing or mistyped field.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        id = try container.decode(String.self, forKey: .id)
        status = try container.decodeIfPresent(String.self, forKey: .status)
        customerID = try container.stripeIDIfPresent(.customer)
        customerEmail = try container.decodeIfPresent(String.self, forKey: .customerEmail)
        let details = try container.decodeIfPresent(Parent.self, forKey: .parent)?.subscriptionDetails
        subscriptionID = try details?.subscription?.id ?? container.stripeIDIfPresent(.subscription)
        subscriptionMetadata = details?.metadata ?? [:]
        let payments = try container.decodeIfPresent(StripeList<Payment>.self, forKey: .payments)?.data ?? []
        paymentIntentID =
            try container.stripeIDIfPresent(.paymentIntent)
            ?? payments.lazy.compactMap { $0.payment?.paymentIntent?.id }.first
        let lines = try container.decodeIfPresent(StripeList<Line>.self, forKey: .lines)?.data ?? []
        periodStart = lines.compactMap { $0.period?.start }.min().map(StripeJSON.date)
        periodEnd = lines.compactMap { $0.period?.end }.max().map(StripeJSON.date)
        billingReason = try container.decodeIfPresent(String.self, forKey: .billingReason)
        amountPaid = try container.decodeIfPresent(Int.self, forKey: .amountPaid)
        totalExcludingTax = try container.decodeIfPresent(Int.self, forKey: .totalExcludingTax)
        total = try container.decodeIfPresent(Int.self, forKey: .total)
        currency = try container.decodeIfPresent(String.self, forKey: .currency)
        created = try container.stripeDateIfPresent(.created)
        livemode = try container.decode(Bool.self, forKey: .livemode)
    }
}
