import Foundation

/// A Stripe Checkout Session as the API and webhooks return it (only the fields Tollgate uses).
public struct StripeCheckoutSession: Sendable, Equatable {
    /// `payment`, `subscription` or `setup`; unknown future values are kept as they are.
    public struct Mode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let payment = Mode(rawValue: "payment")
        public static let subscription = Mode(rawValue: "subscription")
        public static let setup = Mode(rawValue: "setup")
        public var description: String { rawValue }
    }

    /// `open`, `complete` or `expired`.
    public struct Status: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let open = Status(rawValue: "open")
        public static let complete = Status(rawValue: "complete")
        public static let expired = Status(rawValue: "expired")
        public var description: String { rawValue }
    }

    /// `paid`, `unpaid` or `no_payment_required`.
    public struct PaymentStatus: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let paid = PaymentStatus(rawValue: "paid")
        public static let unpaid = PaymentStatus(rawValue: "unpaid")
        public static let noPaymentRequired = PaymentStatus(rawValue: "no_payment_required")
        public var description: String { rawValue }
    }

    /// `cs_...`.
    public var id: String
    /// The hosted payment page; nil once the session is complete or expired (and in webhooks).
    public var url: String?
    public var mode: Mode
    public var status: Status
    public var paymentStatus: PaymentStatus
    /// `customer` (an id, or the id of an expanded customer).
    public var customerID: String?
    /// `customer_details.email`, else `customer_email`.
    public var email: String?
    /// `subscription` (an id, or the id of an expanded subscription).
    public var subscriptionID: String?
    /// The subscription when it was expanded (`expand[]=subscription`).
    public var subscription: StripeSubscription?
    /// `payment_intent` (an id, or the id of an expanded payment intent).
    public var paymentIntentID: String?
    /// `invoice` (an id), for subscriptions.
    public var invoiceID: String?
    public var clientReferenceID: String?
    public var metadata: [String: String]
    public var created: Date
    public var livemode: Bool
    /// `amount_total`: what the buyer paid, tax included, in the currency's smallest unit.
    public var amountTotal: Int?
    /// `total_details.amount_tax`: the tax in `amountTotal`.
    public var amountTax: Int?
    /// `currency` (lower case, as Stripe writes it).
    public var currency: String?
    /// The prices of `line_items` when they were expanded (`expand[]=line_items`); empty otherwise.
    public var lineItemPriceIDs: [String] = []
    /// The products of those prices (`line_items.data[].price.product`); empty when not expanded.
    public var lineItemProductIDs: [String] = []

    /// Whether the buyer has paid (or owes nothing) and the session is complete: the moment to
    /// grant the purchase.
    public var isPaid: Bool {
        status == .complete && (paymentStatus == .paid || paymentStatus == .noPaymentRequired)
    }

    /// A session with every field given (tests, fakes).
    public init(
        id: String, url: String? = nil, mode: Mode, status: Status, paymentStatus: PaymentStatus,
        customerID: String? = nil, email: String? = nil, subscriptionID: String? = nil,
        subscription: StripeSubscription? = nil, paymentIntentID: String? = nil, invoiceID: String? = nil,
        clientReferenceID: String? = nil, metadata: [String: String] = [:], created: Date, livemode: Bool
    ) {
        self.id = id
        self.url = url
        self.mode = mode
        self.status = status
        self.paymentStatus = paymentStatus
        self.customerID = customerID
        self.email = email
        self.subscriptionID = subscriptionID
        self.subscription = subscription
        self.paymentIntentID = paymentIntentID
        self.invoiceID = invoiceID
        self.clientReferenceID = clientReferenceID
        self.metadata = metadata
        self.created = created
        self.livemode = livemode
    }

    /// Decodes a `checkout.session` object.
    /// - Throws: `StripeError.decoding` when the JSON is malformed or a required field is missing.
    public init(json: [UInt8]) throws {
        self = try StripeJSON.decode(Self.self, from: json, what: "checkout.session")
    }
}

extension StripeCheckoutSession: Decodable {
    private enum Keys: String, CodingKey {
        case id, url, mode, status, customer, subscription, metadata, created, livemode, invoice
        case paymentStatus = "payment_status"
        case customerDetails = "customer_details"
        case customerEmail = "customer_email"
        case paymentIntent = "payment_intent"
        case clientReferenceID = "client_reference_id"
        case lineItems = "line_items"
        case amountTotal = "amount_total"
        case totalDetails = "total_details"
        case currency
    }

    private enum DetailsKeys: String, CodingKey { case email }

    private enum TotalDetailsKeys: String, CodingKey {
        case amountTax = "amount_tax"
    }

    /// An expanded `line_items` list: only each item's price id and product are read.
    private struct LineItems: Decodable {
        struct Item: Decodable {
            struct Price: Decodable {
                let id: String
                let product: StripeExpandableID?
            }
            let price: Price?
        }
        let data: [Item]
    }

    /// Either `"sub_..."` or an expanded subscription object.
    private enum SubscriptionField: Decodable {
        case id(String)
        case object(StripeSubscription)

        init(from decoder: any Decoder) throws {
            if let single = try? decoder.singleValueContainer(), let id = try? single.decode(String.self) {
                self = .id(id)
            } else {
                self = .object(try StripeSubscription(from: decoder))
            }
        }
    }

    /// Decodes the wire form (`snake_case`, Unix-second timestamps).
    /// - Throws: `DecodingError` for a missing or mistyped field.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        id = try container.decode(String.self, forKey: .id)
        url = try container.decodeIfPresent(String.self, forKey: .url)
        mode = Mode(rawValue: try container.decode(String.self, forKey: .mode))
        status = Status(rawValue: try container.decode(String.self, forKey: .status))
        paymentStatus = PaymentStatus(rawValue: try container.decode(String.self, forKey: .paymentStatus))
        customerID = try container.stripeIDIfPresent(.customer)
        var email: String?
        if container.contains(.customerDetails), try !container.decodeNil(forKey: .customerDetails) {
            let details = try container.nestedContainer(keyedBy: DetailsKeys.self, forKey: .customerDetails)
            email = try details.decodeIfPresent(String.self, forKey: .email)
        }
        if email?.isEmpty ?? true {
            email = try container.decodeIfPresent(String.self, forKey: .customerEmail)
        }
        self.email = email
        switch try container.decodeIfPresent(SubscriptionField.self, forKey: .subscription) {
        case .id(let id): subscriptionID = id; subscription = nil
        case .object(let object): subscriptionID = object.id; subscription = object
        case nil: subscriptionID = nil; subscription = nil
        }
        paymentIntentID = try container.stripeIDIfPresent(.paymentIntent)
        invoiceID = try container.stripeIDIfPresent(.invoice)
        clientReferenceID = try container.decodeIfPresent(String.self, forKey: .clientReferenceID)
        metadata = try container.stripeMetadata(.metadata)
        created = try container.stripeDate(.created)
        livemode = try container.decode(Bool.self, forKey: .livemode)
        amountTotal = try container.decodeIfPresent(Int.self, forKey: .amountTotal)
        currency = try container.decodeIfPresent(String.self, forKey: .currency)
        if container.contains(.totalDetails), try !container.decodeNil(forKey: .totalDetails) {
            amountTax = try container.nestedContainer(keyedBy: TotalDetailsKeys.self, forKey: .totalDetails)
                .decodeIfPresent(Int.self, forKey: .amountTax)
        }
        let lineItems = try container.decodeIfPresent(LineItems.self, forKey: .lineItems)?.data ?? []
        lineItemPriceIDs = lineItems.compactMap(\.price?.id)
        lineItemProductIDs = lineItems.compactMap(\.price?.product?.id)
    }
}
