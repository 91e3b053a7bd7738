import Foundation

/// A decoded StoreKit 2 signed transaction (`JWSTransactionDecodedPayload`).
///
/// Every member is optional, as in Apple's model: Apple's own test vectors carry only a few of
/// them. Dates are Unix milliseconds on the wire (fractional ones from Xcode are accepted).
public struct AppStoreTransaction: Sendable, Equatable, Decodable {
    /// The id of this transaction (a renewal has its own).
    public var transactionID: String?
    /// The id of the first transaction of the subscription or purchase: the purchase's key.
    public var originalTransactionID: String?
    /// The app's bundle identifier.
    public var bundleID: String?
    /// The product identifier.
    public var productID: String?
    /// The subscription group of an auto-renewable subscription.
    public var subscriptionGroupIdentifier: String?
    /// When the App Store charged the user for this transaction.
    public var purchaseDate: Date?
    /// When the original transaction was purchased.
    public var originalPurchaseDate: Date?
    /// When the subscription expires or renews; nil for purchases that do not expire.
    public var expiresDate: Date?
    /// `Auto-Renewable Subscription`, `Non-Consumable`, `Consumable` or `Non-Renewing Subscription`.
    public var type: String?
    /// `Production`, `Sandbox`, `Xcode` or `LocalTesting`.
    public var environment: String?
    /// The UUID the app set at purchase (`appAccountToken`), as sent.
    public var appAccountToken: String?
    /// When the App Store refunded the transaction or revoked it from Family Sharing.
    public var revocationDate: Date?
    /// 0 (other) or 1 (an issue in the app) when refunded.
    public var revocationReason: Int?
    /// `PURCHASED` or `FAMILY_SHARED`.
    public var inAppOwnershipType: String?
    /// When the App Store signed this data.
    public var signedDate: Date?
    /// 1 introductory, 2 promotional, 3 offer code, 4 win-back.
    public var offerType: Int?
    /// `FREE_TRIAL`, `PAY_AS_YOU_GO` or `PAY_UP_FRONT` (newer payloads).
    public var offerDiscountType: String?
    /// `PURCHASE` or `RENEWAL`.
    public var transactionReason: String?
    /// The number of consumable products purchased.
    public var quantity: Int?
    /// The id of the subscription's billing period across devices.
    public var webOrderLineItemID: String?

    /// A transaction with the given members (tests and fakes build them; the App Store signs them).
    public init(
        transactionID: String? = nil, originalTransactionID: String? = nil, bundleID: String? = nil,
        productID: String? = nil, purchaseDate: Date? = nil, expiresDate: Date? = nil, type: String? = nil,
        environment: String? = nil, appAccountToken: String? = nil, revocationDate: Date? = nil,
        revocationReason: Int? = nil, inAppOwnershipType: String? = nil, signedDate: Date? = nil, offerType: Int? = nil
    ) {
        self.transactionID = transactionID
        self.originalTransactionID = originalTransactionID
        self.bundleID = bundleID
        self.productID = productID
        self.purchaseDate = purchaseDate
        self.expiresDate = expiresDate
        self.type = type
        self.environment = environment
        self.appAccountToken = appAccountToken
        self.revocationDate = revocationDate
        self.revocationReason = revocationReason
        self.inAppOwnershipType = inAppOwnershipType
        self.signedDate = signedDate
        self.offerType = offerType
    }

    /// Whether this is an auto-renewable subscription.
    public var isAutoRenewable: Bool { type == "Auto-Renewable Subscription" }

    private enum CodingKeys: String, CodingKey {
        case transactionID = "transactionId", originalTransactionID = "originalTransactionId", bundleID = "bundleId"
        case productID = "productId", subscriptionGroupIdentifier, purchaseDate, originalPurchaseDate, expiresDate
        case type, environment, appAccountToken, revocationDate, revocationReason, inAppOwnershipType, signedDate
        case offerType, offerDiscountType, transactionReason, quantity, webOrderLineItemID = "webOrderLineItemId"
    }

    /// Decodes the App Store's JSON members.
    /// - Throws: `DecodingError` for a member of the wrong type.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        transactionID = try c.decodeIfPresent(String.self, forKey: .transactionID)
        originalTransactionID = try c.decodeIfPresent(String.self, forKey: .originalTransactionID)
        bundleID = try c.decodeIfPresent(String.self, forKey: .bundleID)
        productID = try c.decodeIfPresent(String.self, forKey: .productID)
        subscriptionGroupIdentifier = try c.decodeIfPresent(String.self, forKey: .subscriptionGroupIdentifier)
        purchaseDate = try AppStoreJSON.date(c, .purchaseDate)
        originalPurchaseDate = try AppStoreJSON.date(c, .originalPurchaseDate)
        expiresDate = try AppStoreJSON.date(c, .expiresDate)
        type = try c.decodeIfPresent(String.self, forKey: .type)
        environment = try c.decodeIfPresent(String.self, forKey: .environment)
        appAccountToken = try c.decodeIfPresent(String.self, forKey: .appAccountToken)
        revocationDate = try AppStoreJSON.date(c, .revocationDate)
        revocationReason = try c.decodeIfPresent(Int.self, forKey: .revocationReason)
        inAppOwnershipType = try c.decodeIfPresent(String.self, forKey: .inAppOwnershipType)
        signedDate = try AppStoreJSON.date(c, .signedDate)
        offerType = try c.decodeIfPresent(Int.self, forKey: .offerType)
        offerDiscountType = try c.decodeIfPresent(String.self, forKey: .offerDiscountType)
        transactionReason = try c.decodeIfPresent(String.self, forKey: .transactionReason)
        quantity = try c.decodeIfPresent(Int.self, forKey: .quantity)
        webOrderLineItemID = try c.decodeIfPresent(String.self, forKey: .webOrderLineItemID)
    }
}
