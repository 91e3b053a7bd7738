import Foundation

/// A decoded StoreKit 2 signed renewal info (`JWSRenewalInfoDecodedPayload`) of an
/// auto-renewable subscription. Every member is optional, as in Apple's model.
public struct AppStoreRenewalInfo: Sendable, Equatable, Decodable {
    /// The subscription's original transaction id.
    public var originalTransactionID: String?
    /// The product the subscription currently is.
    public var productID: String?
    /// 1 when the subscription will renew, 0 when the user turned renewal off.
    public var autoRenewStatus: Int?
    /// The product it renews into.
    public var autoRenewProductID: String?
    /// Why it expired: 1 voluntary, 2 billing error, 3 price increase refused, 4 not for sale, 5 other.
    public var expirationIntent: Int?
    /// When the billing grace period ends.
    public var gracePeriodExpiresDate: Date?
    /// Whether the App Store is still trying to renew.
    public var isInBillingRetryPeriod: Bool?
    /// The offer type of the next renewal.
    public var offerType: Int?
    /// 0 not yet consented, 1 consented to a price increase.
    public var priceIncreaseStatus: Int?
    /// When the next renewal happens.
    public var renewalDate: Date?
    /// The start of the current run of continuous subscription.
    public var recentSubscriptionStartDate: Date?
    /// `Production`, `Sandbox`, `Xcode` or `LocalTesting`.
    public var environment: String?
    /// When the App Store signed this data.
    public var signedDate: Date?

    /// Renewal info with the given members (tests and fakes build them).
    public init(
        originalTransactionID: String? = nil, productID: String? = nil, autoRenewStatus: Int? = nil,
        autoRenewProductID: String? = nil, expirationIntent: Int? = nil, gracePeriodExpiresDate: Date? = nil,
        isInBillingRetryPeriod: Bool? = nil, environment: String? = nil, signedDate: Date? = nil
    ) {
        self.originalTransactionID = originalTransactionID
        self.productID = productID
        self.autoRenewStatus = autoRenewStatus
        self.autoRenewProductID = autoRenewProductID
        self.expirationIntent = expirationIntent
        self.gracePeriodExpiresDate = gracePeriodExpiresDate
        self.isInBillingRetryPeriod = isInBillingRetryPeriod
        self.environment = environment
        self.signedDate = signedDate
    }

    private enum CodingKeys: String, CodingKey {
        case originalTransactionID = "originalTransactionId", productID = "productId", autoRenewStatus
        case autoRenewProductID = "autoRenewProductId", expirationIntent, gracePeriodExpiresDate, isInBillingRetryPeriod
        case offerType, priceIncreaseStatus, renewalDate, recentSubscriptionStartDate, environment, signedDate
    }

    /// Decodes the App Store's JSON members.
    /// - Throws: `DecodingError` for a member of the wrong type.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        originalTransactionID = try c.decodeIfPresent(String.self, forKey: .originalTransactionID)
        productID = try c.decodeIfPresent(String.self, forKey: .productID)
        autoRenewStatus = try c.decodeIfPresent(Int.self, forKey: .autoRenewStatus)
        autoRenewProductID = try c.decodeIfPresent(String.self, forKey: .autoRenewProductID)
        expirationIntent = try c.decodeIfPresent(Int.self, forKey: .expirationIntent)
        gracePeriodExpiresDate = try AppStoreJSON.date(c, .gracePeriodExpiresDate)
        isInBillingRetryPeriod = try c.decodeIfPresent(Bool.self, forKey: .isInBillingRetryPeriod)
        offerType = try c.decodeIfPresent(Int.self, forKey: .offerType)
        priceIncreaseStatus = try c.decodeIfPresent(Int.self, forKey: .priceIncreaseStatus)
        renewalDate = try AppStoreJSON.date(c, .renewalDate)
        recentSubscriptionStartDate = try AppStoreJSON.date(c, .recentSubscriptionStartDate)
        environment = try c.decodeIfPresent(String.self, forKey: .environment)
        signedDate = try AppStoreJSON.date(c, .signedDate)
    }
}
