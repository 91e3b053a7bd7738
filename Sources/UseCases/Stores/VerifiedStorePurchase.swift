import Domain

/// A purchase a store has just vouched for: its state, and what must still be told to the
/// store once the purchase is stored (Google Play acknowledgements). An App Store receipt
/// vouches for every purchase in it: the newest is `snapshot`, the others `alongside`.
public struct VerifiedStorePurchase: Sendable, Equatable {
    /// The purchase state to apply (`PurchaseRepository.apply`): the one the caller asked about,
    /// or a receipt's newest purchase.
    public let snapshot: PurchaseSnapshot
    /// The other purchases the same proof vouches for (an App Store receipt's other
    /// `original_transaction_id`s, newest first); `StorePurchaseVerifier.record` applies them in the
    /// same transaction, and the caller links them with `snapshot` (`PurchaseClaim.claimAlongside`).
    public let alongside: [PurchaseSnapshot]
    /// Set when Google Play expects an acknowledgement (it refunds unacknowledged purchases
    /// after three days); `StorePurchaseVerifier.record` sends it after the purchase is stored.
    public let acknowledgement: PlayAcknowledgement?
    /// Other ids the store names `snapshot`'s product by: for Stripe, the product (`prod_...`) of
    /// its price (`snapshot.productID` is the price). A caller's `store_product_id` may be either.
    public let productAliases: [String]
    /// The App Store receipt (base64) the purchases were verified from, when they were: kept
    /// sealed by `StorePurchaseVerifier.record` where verifyReceipt is the only way to ask Apple.
    public let receipt: String?
    /// A signed transaction whose `inAppOwnershipType` is `FAMILY_SHARED`: it proves the purchase,
    /// never the account that holds it ("Who may act for an account").
    public var isFamilyShared = false

    /// A verified purchase (and the other purchases the same proof vouches for).
    public init(
        snapshot: PurchaseSnapshot, acknowledgement: PlayAcknowledgement? = nil, alongside: [PurchaseSnapshot] = [],
        productAliases: [String] = [], receipt: String? = nil
    ) {
        self.snapshot = snapshot
        self.acknowledgement = acknowledgement
        self.alongside = alongside
        self.productAliases = productAliases
        self.receipt = receipt
    }

    /// `snapshot` followed by `alongside`.
    public var snapshots: [PurchaseSnapshot] { [snapshot] + alongside }
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
