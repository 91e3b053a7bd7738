import Foundation

/// A purchase as the service reports it (API.md's `purchase` object).
@available(iOS 16, macOS 13, tvOS 16, watchOS 9, *)
public struct PurchaseInfo: Codable, Sendable, Equatable {
    /// `stripe`, `app_store` or `play_store`.
    public let platform: String
    /// The store product or Stripe price id.
    public let productID: String?
    /// The subscription's id at its store, for subscriptions.
    public let subscriptionID: String?
    /// Stripe's payment intent, for one-time web purchases.
    public let paymentIntentID: String?
    /// `active`, `grace`, `expired`, `canceled`, `refunded`, ... as the service names it.
    public let status: String
    /// When the paid period ends; nil for lifetime purchases.
    public let expiresAt: Date?

    /// Makes a purchase value (for previews and tests).
    public init(platform: String, productID: String?, subscriptionID: String? = nil, paymentIntentID: String? = nil, status: String, expiresAt: Date?)
    {
        self.platform = platform
        self.productID = productID
        self.subscriptionID = subscriptionID
        self.paymentIntentID = paymentIntentID
        self.status = status
        self.expiresAt = expiresAt
    }

    enum CodingKeys: String, CodingKey {
        case platform, status
        case productID = "product_id"
        case subscriptionID = "subscription_id"
        case paymentIntentID = "payment_intent_id"
        case expiresAt = "expires_at"
    }
}
