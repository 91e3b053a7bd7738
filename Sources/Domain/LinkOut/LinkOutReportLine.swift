import Foundation

/// One transaction a platform is told about, made under a link-out token (a first purchase, a
/// renewal, a refund), as Tollgate knows it. The report clients turn it into Apple's line items
/// and Google's external transactions. Ids are Tollgate's own and carry no personal data.
public struct LinkOutReportLine: Sendable, Equatable, Codable {
    /// What happened.
    public enum Kind: String, Sendable, Equatable, Codable {
        case purchase, renewal, refund
    }

    /// One-time purchase or subscription.
    public enum ProductType: String, Sendable, Equatable, Codable {
        case oneTime = "one_time"
        case subscription
    }

    public var kind: Kind
    /// Tollgate's id of this line (`lo_` and 32 hex digits derived from the purchase and the
    /// payment): Apple's `lineItemId`, Google's `externalTransactionId`.
    public var lineID: String
    /// A refund: the line it refunds.
    public var referenceLineID: String?
    /// A renewal: the days of paid service before its period (Apple's `subscriptionDaysOfPaidService`).
    public var paidDaysBefore: Int?
    /// A refund: what is left of the refunded line's pre-tax amount after it (0: all refunded).
    public var remainingPreTaxMinor: Int?
    /// The product (the plan's Stripe price, or the product the app sells it as).
    public var productID: String
    public var productType: ProductType
    /// When the buyer paid or was refunded.
    public var occurredAt: Date
    /// The amount before tax, in the currency's minor unit (cents); nil when the payment
    /// processor did not say.
    public var amountMinor: Int?
    /// The tax, in minor units; nil when unknown.
    public var taxMinor: Int?
    /// ISO 4217, upper case (`EUR`).
    public var currency: String?
    /// A subscription period's start and end.
    public var periodStart: Date?
    public var periodEnd: Date?

    public init(
        kind: Kind, lineID: String, referenceLineID: String? = nil, productID: String, productType: ProductType, occurredAt: Date,
        amountMinor: Int? = nil, taxMinor: Int? = nil, currency: String? = nil, periodStart: Date? = nil, periodEnd: Date? = nil,
        paidDaysBefore: Int? = nil, remainingPreTaxMinor: Int? = nil
    ) {
        self.kind = kind
        self.lineID = lineID
        self.referenceLineID = referenceLineID
        self.paidDaysBefore = paidDaysBefore
        self.remainingPreTaxMinor = remainingPreTaxMinor
        self.productID = productID
        self.productType = productType
        self.occurredAt = occurredAt
        self.amountMinor = amountMinor
        self.taxMinor = taxMinor
        self.currency = currency?.uppercased()
        self.periodStart = periodStart
        self.periodEnd = periodEnd
    }
}
