/// A plan web checkout sells (`plans.<name>`): its Stripe price and whether it is paid once.
public struct CheckoutPlan: Sendable, Equatable {
    /// `price_...`.
    public var priceID: String
    /// `mode = payment` (one-time) rather than a subscription.
    public var isOneTimePayment: Bool

    public init(priceID: String, isOneTimePayment: Bool) {
        self.priceID = priceID
        self.isOneTimePayment = isOneTimePayment
    }
}
