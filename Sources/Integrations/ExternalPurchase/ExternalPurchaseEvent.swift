import Foundation

/// One reportable event of a purchase made outside the stores after a link out of the app (a
/// buy, a subscription period, a refund), in neutral terms: Apple's line items
/// (`ExternalPurchaseReport`) and Google's external transactions
/// (`GooglePlayExternalTransactionsClient`) are both built from it. A report queue makes one
/// from each purchase change.
public struct ExternalPurchaseEvent: Sendable, Equatable {
    /// What happened.
    public enum Kind: Sendable, Equatable {
        /// A one-time product was bought, `quantity` units of it.
        case oneTimeBuy(quantity: Int)
        /// A subscription's first paid period (`periodStart..<periodEnd`) began.
        case subscriptionStart(periodStart: Date, periodEnd: Date)
        /// A later period of the subscription whose `subscriptionStart` event is `initial`.
        /// `paidDaysBefore` is the number of days of paid service before this period (Apple's
        /// `subscriptionDaysOfPaidService`: 0 at the start, then the days of every period paid
        /// so far; free days never count).
        case subscriptionRenewal(initial: ExternalReportID, periodStart: Date, periodEnd: Date, paidDaysBefore: Int)
        /// Money given back for the event `refunded` (a buy or a renewal; chargebacks too).
        /// `amount` is what this refund returns; `remainingPreTaxMinorUnits` is what is left of
        /// the refunded event's pre-tax amount after this and every earlier refund (0 when
        /// nothing is left: a full refund).
        case refund(refunded: ExternalReportID, remainingPreTaxMinorUnits: Int64)
    }

    /// Our id of the event (Apple's `lineItemId`, Google's `externalTransactionId` or partial `refundId`).
    public let id: ExternalReportID
    /// The store product id of what was bought (`com.example.monthly`); for a refund, the refunded one's.
    public let productID: String
    /// What happened.
    public let kind: Kind
    /// When the buyer paid, or when the refund was made.
    public let time: Date
    /// What was paid or refunded.
    public let amount: ExternalReportAmount
    /// The country whose tax applies (the buyer's).
    public let taxCountry: ISOCountry
    /// The buyer's state or territory, upper case, where the platform needs it (Google: India's,
    /// e.g. `KARNATAKA`); nil elsewhere.
    public let taxAdministrativeArea: String?

    /// The longest product id accepted (Apple refuses longer `productIdentifier`s with MaximumLengthExceededError).
    public static let maximumProductIDLength = 128

    /// An event.
    /// - Throws: `UpstreamError.invalidReport` for an empty or over-long product id, a
    ///   period that ends before it starts, a quantity below 1, negative paid days, a negative
    ///   remaining amount, or an event that refers to itself.
    public init(
        id: ExternalReportID, productID: String, kind: Kind, time: Date, amount: ExternalReportAmount, taxCountry: ISOCountry,
        taxAdministrativeArea: String? = nil
    ) throws {
        guard !productID.isEmpty, productID.utf8.count <= Self.maximumProductIDLength else {
            throw UpstreamError.invalidReport("event \(id): product id must be 1–\(Self.maximumProductIDLength) bytes")
        }
        switch kind {
        case .oneTimeBuy(let quantity):
            guard quantity >= 1 else { throw UpstreamError.invalidReport("event \(id): quantity \(quantity) is below 1") }
        case .subscriptionStart(let start, let end):
            guard end > start else { throw UpstreamError.invalidReport("event \(id): the period ends before it starts") }
        case .subscriptionRenewal(let initial, let start, let end, let paidDays):
            guard end > start else { throw UpstreamError.invalidReport("event \(id): the period ends before it starts") }
            guard paidDays >= 0 else { throw UpstreamError.invalidReport("event \(id): paid days \(paidDays) are negative") }
            guard initial != id else { throw UpstreamError.invalidReport("event \(id): a renewal cannot be its own first period") }
        case .refund(let refunded, let remaining):
            guard remaining >= 0 else { throw UpstreamError.invalidReport("event \(id): the remaining amount is negative") }
            guard refunded != id else { throw UpstreamError.invalidReport("event \(id): a refund cannot refund itself") }
        }
        if let area = taxAdministrativeArea, area.isEmpty || area.utf8.count > 64 {
            throw UpstreamError.invalidReport("event \(id): the administrative area must be 1–64 bytes")
        }
        self.id = id
        self.productID = productID
        self.kind = kind
        self.time = time
        self.amount = amount
        self.taxCountry = taxCountry
        self.taxAdministrativeArea = taxAdministrativeArea
    }

    /// Unix milliseconds, as Apple writes dates.
    static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }
}
