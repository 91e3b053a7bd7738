import Foundation

/// A Stripe Subscription (only the fields Tollgate uses). Reads the period end from both places
/// Stripe has kept it: `items.data[].current_period_end` (API 2025-03-31 and later) and the
/// top-level `current_period_end` (earlier versions), since a webhook endpoint's API version is
/// set in the dashboard and may differ from the version the client pins.
public struct StripeSubscription: Sendable, Equatable {
    /// `active`, `trialing`, `past_due`, `unpaid`, `canceled`, `incomplete`,
    /// `incomplete_expired`, `paused`; unknown future values are kept as they are.
    public struct Status: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let active = Status(rawValue: "active")
        public static let trialing = Status(rawValue: "trialing")
        public static let pastDue = Status(rawValue: "past_due")
        public static let unpaid = Status(rawValue: "unpaid")
        public static let canceled = Status(rawValue: "canceled")
        public static let incomplete = Status(rawValue: "incomplete")
        public static let incompleteExpired = Status(rawValue: "incomplete_expired")
        public static let paused = Status(rawValue: "paused")
        /// Every status Stripe documents.
        public static let all: [Status] = [.active, .trialing, .pastDue, .unpaid, .canceled, .incomplete, .incompleteExpired, .paused]
        public var description: String { rawValue }
    }

    /// `sub_...`.
    public var id: String
    public var status: Status
    /// `customer` (an id, or the id of an expanded customer).
    public var customerID: String
    /// `items.data[].price.id`, in order.
    public var priceIDs: [String]
    /// `items.data[].price.product` (an id, or the id of an expanded product), in order.
    public var productIDs: [String]
    /// The latest `items.data[].current_period_end`, else the top-level `current_period_end`.
    public var currentPeriodEnd: Date?
    /// The latest `items.data[].current_period_start`, else the top-level `current_period_start`.
    public var currentPeriodStart: Date?
    public var cancelAtPeriodEnd: Bool
    /// A scheduled cancellation time (`cancel_at`), if any.
    public var cancelAt: Date?
    public var canceledAt: Date?
    public var endedAt: Date?
    /// `created`, else `start_date` (webhook payloads may carry only the latter).
    public var created: Date?
    public var metadata: [String: String]
    public var livemode: Bool

    /// A subscription with every field given (tests, fakes).
    public init(
        id: String, status: Status, customerID: String, priceIDs: [String], productIDs: [String] = [], currentPeriodEnd: Date?,
        cancelAtPeriodEnd: Bool = false, cancelAt: Date? = nil, canceledAt: Date? = nil, endedAt: Date? = nil,
        created: Date? = nil, metadata: [String: String] = [:], livemode: Bool = false
    ) {
        self.id = id
        self.status = status
        self.customerID = customerID
        self.priceIDs = priceIDs
        self.productIDs = productIDs
        self.currentPeriodEnd = currentPeriodEnd
        self.cancelAtPeriodEnd = cancelAtPeriodEnd
        self.cancelAt = cancelAt
        self.canceledAt = canceledAt
        self.endedAt = endedAt
        self.created = created
        self.metadata = metadata
        self.livemode = livemode
    }

    /// Decodes a `subscription` object.
    /// - Throws: `StripeError.decoding` when the JSON is malformed or a required field is missing.
    public init(json: [UInt8]) throws {
        self = try StripeJSON.decode(Self.self, from: json, what: "subscription")
    }
}

extension StripeSubscription: Decodable {
    private enum Keys: String, CodingKey {
        case id, status, customer, items, created, metadata, livemode
        case currentPeriodEnd = "current_period_end"
        case currentPeriodStart = "current_period_start"
        case cancelAtPeriodEnd = "cancel_at_period_end"
        case cancelAt = "cancel_at"
        case canceledAt = "canceled_at"
        case endedAt = "ended_at"
        case startDate = "start_date"
    }

    private struct Item: Decodable {
        struct Price: Decodable {
            let id: String
            let product: StripeExpandableID?
        }
        let price: Price
        let currentPeriodEnd: Int64?
        let currentPeriodStart: Int64?

        enum CodingKeys: String, CodingKey {
            case price
            case currentPeriodEnd = "current_period_end"
            case currentPeriodStart = "current_period_start"
        }
    }

    /// Decodes the wire form (`snake_case`, Unix-second timestamps).
    /// - Throws: `DecodingError` for a missing or mistyped field.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        id = try container.decode(String.self, forKey: .id)
        status = Status(rawValue: try container.decode(String.self, forKey: .status))
        customerID = try container.decode(StripeExpandableID.self, forKey: .customer).id
        let items = try container.decodeIfPresent(StripeList<Item>.self, forKey: .items)?.data ?? []
        priceIDs = items.map(\.price.id)
        productIDs = items.compactMap(\.price.product?.id)
        if let itemEnd = items.compactMap(\.currentPeriodEnd).max() {
            currentPeriodEnd = StripeJSON.date(itemEnd)
        } else {
            currentPeriodEnd = try container.stripeDateIfPresent(.currentPeriodEnd)
        }
        if let itemStart = items.compactMap(\.currentPeriodStart).max() {
            currentPeriodStart = StripeJSON.date(itemStart)
        } else {
            currentPeriodStart = try container.stripeDateIfPresent(.currentPeriodStart)
        }
        cancelAtPeriodEnd = try container.decodeIfPresent(Bool.self, forKey: .cancelAtPeriodEnd) ?? false
        cancelAt = try container.stripeDateIfPresent(.cancelAt)
        canceledAt = try container.stripeDateIfPresent(.canceledAt)
        endedAt = try container.stripeDateIfPresent(.endedAt)
        created = try container.stripeDateIfPresent(.created) ?? container.stripeDateIfPresent(.startDate)
        metadata = try container.stripeMetadata(.metadata)
        livemode = try container.decode(Bool.self, forKey: .livemode)
    }
}
