/// What a redeemed code stands for (API.md's `redemption_info`): who bought, what, and the
/// entitlements it grants.
@available(iOS 16, macOS 13, tvOS 16, watchOS 9, *)
public struct RedemptionInfo: Codable, Sendable, Equatable {
    /// The buyer, as the checkout recorded them.
    public struct Purchaser: Codable, Sendable, Equatable {
        /// The app user the checkout was started for, if any.
        public let appUserID: String?
        /// The email the buyer paid with.
        public let email: String?
        /// Stripe's customer id, for web purchases.
        public let stripeCustomerID: String?

        /// Makes a purchaser value (for previews and tests).
        public init(appUserID: String?, email: String?, stripeCustomerID: String?) {
            self.appUserID = appUserID
            self.email = email
            self.stripeCustomerID = stripeCustomerID
        }

        enum CodingKeys: String, CodingKey {
            case email
            case appUserID = "app_user_id"
            case stripeCustomerID = "stripe_customer_id"
        }
    }

    /// The buyer.
    public let purchaserInfo: Purchaser
    /// The purchase.
    public let purchase: PurchaseInfo
    /// The entitlements this purchase grants, with their state now.
    public let entitlements: [Entitlement]

    /// Makes a redemption info value (for previews and tests).
    public init(purchaserInfo: Purchaser, purchase: PurchaseInfo, entitlements: [Entitlement]) {
        self.purchaserInfo = purchaserInfo
        self.purchase = purchase
        self.entitlements = entitlements
    }

    enum CodingKeys: String, CodingKey {
        case purchase, entitlements
        case purchaserInfo = "purchaser_info"
    }
}
