import Foundation

/// A Stripe Charge (only the fields a refund needs): its invoice or payment intent names the
/// purchase it paid.
public struct StripeCharge: Sendable, Equatable {
    /// `ch_...`.
    public var id: String
    /// The payment intent this charge paid: the natural key of a one-time purchase.
    public var paymentIntentID: String?
    /// The invoice this charge paid (older API versions only).
    public var invoiceID: String?
    public var customerID: String?
    /// In the currency's smallest unit.
    public var amount: Int
    public var amountRefunded: Int
    /// Whether the charge is fully refunded (Stripe's `refunded`).
    public var refunded: Bool
    public var currency: String?
    /// The Charge's `created`: when it was *paid*. A `charge.refunded` event carries the Charge,
    /// so this is never the time of a refund: that is the event's `created`.
    public var paidAt: Date?
    public var livemode: Bool

    /// Whether the whole amount went back to the buyer.
    public var isFullyRefunded: Bool { refunded || (amount > 0 && amountRefunded >= amount) }

    /// A charge with every field given (tests, fakes).
    public init(
        id: String, paymentIntentID: String? = nil, invoiceID: String? = nil, customerID: String? = nil,
        amount: Int, amountRefunded: Int, refunded: Bool, currency: String? = nil, paidAt: Date? = nil,
        livemode: Bool = false
    ) {
        self.id = id
        self.paymentIntentID = paymentIntentID
        self.invoiceID = invoiceID
        self.customerID = customerID
        self.amount = amount
        self.amountRefunded = amountRefunded
        self.refunded = refunded
        self.currency = currency
        self.paidAt = paidAt
        self.livemode = livemode
    }

    /// Decodes a `charge` object.
    /// - Throws: `StripeError.decoding` when the JSON is malformed or a required field is missing.
    public init(json: [UInt8]) throws {
        self = try StripeJSON.decode(Self.self, from: json, what: "charge")
    }
}

extension StripeCharge: Decodable {
    private enum Keys: String, CodingKey {
        case id, invoice, customer, amount, refunded, currency, created, livemode
        case paymentIntent = "payment_intent"
        case amountRefunded = "amount_refunded"
    }

    /// Decodes the wire form (`snake_case`, Unix-second timestamps).
    /// - Throws: `DecodingError` for a missing or mistyped field.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        id = try container.decode(String.self, forKey: .id)
        paymentIntentID = try container.stripeIDIfPresent(.paymentIntent)
        invoiceID = try container.stripeIDIfPresent(.invoice)
        customerID = try container.stripeIDIfPresent(.customer)
        amount = try container.decode(Int.self, forKey: .amount)
        amountRefunded = try container.decode(Int.self, forKey: .amountRefunded)
        refunded = try container.decode(Bool.self, forKey: .refunded)
        currency = try container.decodeIfPresent(String.self, forKey: .currency)
        paidAt = try container.stripeDateIfPresent(.created)
        livemode = try container.decode(Bool.self, forKey: .livemode)
    }
}
