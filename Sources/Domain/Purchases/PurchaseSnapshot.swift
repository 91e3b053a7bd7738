import Foundation

/// What a store or payment provider says about one purchase at one moment. Store clients
/// and notification decoders produce snapshots; the domain applies them to the purchase
/// keyed by `(platform, externalID)`, ignoring a snapshot older than what it already has.
public struct PurchaseSnapshot: Sendable, Equatable {
    public var platform: Platform
    /// The natural key within the platform: Stripe subscription id (or payment intent for
    /// one-time payments), Apple original transaction id, Play purchase token.
    public var externalID: String
    public var productID: String
    public var status: PurchaseStatus
    /// When access ends; nil for one-time purchases that never expire.
    public var expiresAt: Date?
    /// `Production`, `Sandbox`, `Xcode`; Stripe `live` or `test`.
    public var environment: String?
    /// When the store says this state was true (event time, `signedDate`, period start...).
    /// Snapshots older than the stored state are ignored: events arrive out of order.
    public var observedAt: Date
    /// Our `obfuscated_account_id` when the app set one at purchase (Play
    /// `obfuscatedExternalAccountId`, Apple `appAccountToken`).
    public var ownerHint: String?
    /// The purchaser's email when the provider knows it (Stripe).
    public var purchaserEmail: String?
    /// Stripe customer id.
    public var customerID: String?
    /// A purchase this one supersedes (Play `linkedPurchaseToken`): the two are one purchase.
    public var supersedesExternalID: String?
    /// A store transaction id for this state (Apple `transactionId`, Stripe invoice...), for audits.
    public var transactionID: String?
    /// For a non-renewing subscription (App Store), when it was bought: its expiry comes from
    /// `products_duration_days` (`ProductDurations`), not from the store.
    public var nonRenewingPurchasedAt: Date? = nil
    /// For a consumable (App Store), when it was bought: it gets an expiry from
    /// `products_duration_days` when that names its product (a day pass), else it stays as the
    /// store says (access only where an entitlement names it).
    public var consumablePurchasedAt: Date? = nil
    /// Whether the subscription renews at the end of the period; nil when the store did not say
    /// (the stored value is kept).
    public var willRenew: Bool? = nil
    /// The product it renews into when that is another one (a pending downgrade or crossgrade:
    /// Apple `autoRenewProductId`, Play's deferred replacement); read with `willRenew`.
    public var renewsToProductID: String? = nil
    /// The store offer the purchase was bought with (App Store `introductory`, `promotional`,
    /// `offer_code`, `win_back`; Play the offer id); nil when none or not said.
    public var offerType: String? = nil
    /// What told us (the purchase history's source); nil: the platform's usual messenger
    /// (`PurchaseHistory.Source.default(for:)`).
    public var source: PurchaseHistory.Source? = nil

    public init(
        platform: Platform, externalID: String, productID: String, status: PurchaseStatus,
        expiresAt: Date?, environment: String? = nil, observedAt: Date, ownerHint: String? = nil,
        purchaserEmail: String? = nil, customerID: String? = nil, supersedesExternalID: String? = nil,
        transactionID: String? = nil
    ) {
        self.platform = platform
        self.externalID = externalID
        self.productID = productID
        self.status = status
        self.expiresAt = expiresAt
        self.environment = environment
        self.observedAt = observedAt
        self.ownerHint = ownerHint
        self.purchaserEmail = purchaserEmail
        self.customerID = customerID
        self.supersedesExternalID = supersedesExternalID
        self.transactionID = transactionID
    }

    /// Whether this snapshot grants access at `now`.
    public func isEntitled(at now: Date) -> Bool {
        guard status.grantsAccess else { return false }
        guard let expiresAt else { return true }
        return expiresAt > now
    }
}
