import Domain

/// A purchase a store has just vouched for: its state, and what must still be told to the
/// store once the purchase is stored (Google Play acknowledgements).
public struct VerifiedStorePurchase: Sendable, Equatable {
    /// The purchase state to apply (`PurchaseRepository.apply`).
    public let snapshot: PurchaseSnapshot
    /// Set when Google Play expects an acknowledgement (it refunds unacknowledged purchases
    /// after three days); `StorePurchaseVerifier.record` sends it after the purchase is stored.
    public let acknowledgement: PlayAcknowledgement?

    /// A verified purchase.
    public init(snapshot: PurchaseSnapshot, acknowledgement: PlayAcknowledgement? = nil) {
        self.snapshot = snapshot
        self.acknowledgement = acknowledgement
    }
}

/// A Google Play acknowledgement still to send.
public struct PlayAcknowledgement: Sendable, Equatable {
    /// Which acknowledge endpoint: `purchases.subscriptions` or `purchases.products`.
    public enum Kind: String, Sendable, Equatable {
        case subscription, product
    }

    public let kind: Kind
    /// The subscription or product id (the `{sku}` path segment).
    public let productID: String
    public let purchaseToken: String

    /// An acknowledgement of `purchaseToken`.
    public init(kind: Kind, productID: String, purchaseToken: String) {
        self.kind = kind
        self.productID = productID
        self.purchaseToken = purchaseToken
    }
}
