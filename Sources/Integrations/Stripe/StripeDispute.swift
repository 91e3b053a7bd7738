import Foundation

/// A Stripe Dispute (a chargeback): only the fields that decide access. A dispute closed `lost`
/// returned the money to the buyer, so it ends what the charge paid for, as a full refund does.
public struct StripeDispute: Sendable, Equatable {
    /// `dp_...`.
    public var id: String
    /// The disputed charge (`ch_...`).
    public var chargeID: String
    /// The payment intent of that charge; Stripe sends null for charges made without one.
    public var paymentIntentID: String?
    /// In the currency's smallest unit.
    public var amount: Int
    /// `warning_needs_response`, `needs_response`, `under_review`, `won`, `lost`, ...
    public var status: String
    /// When the dispute was opened (not when it closed: that is the event's `created`).
    public var openedAt: Date?
    public var livemode: Bool

    /// Whether the buyer kept the money.
    public var isLost: Bool { status == "lost" }

    /// A dispute with every field given (tests, fakes).
    public init(
        id: String, chargeID: String, paymentIntentID: String? = nil, amount: Int, status: String, openedAt: Date? = nil,
        livemode: Bool = false
    ) {
        self.id = id
        self.chargeID = chargeID
        self.paymentIntentID = paymentIntentID
        self.amount = amount
        self.status = status
        self.openedAt = openedAt
        self.livemode = livemode
    }
}

extension StripeDispute: Decodable {
    private enum Keys: String, CodingKey {
        case id, charge, amount, status, created, livemode
        case paymentIntent = "payment_intent"
    }

    /// Decodes the wire form (`charge` and `payment_intent` as ids or expanded objects).
    /// - Throws: `DecodingError` for a missing or mistyped field.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        id = try container.decode(String.self, forKey: .id)
        guard let charge = try container.stripeIDIfPresent(.charge) else {
            throw DecodingError.keyNotFound(Keys.charge, .init(codingPath: container.codingPath, debugDescription: "a dispute names its charge"))
        }
        chargeID = charge
        paymentIntentID = try container.stripeIDIfPresent(.paymentIntent)
        amount = try container.decode(Int.self, forKey: .amount)
        status = try container.decode(String.self, forKey: .status)
        openedAt = try container.stripeDateIfPresent(.created)
        livemode = try container.decode(Bool.self, forKey: .livemode)
    }
}
