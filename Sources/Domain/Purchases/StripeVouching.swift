/// Which Stripe objects this deployment can vouch for (API.md "Server-to-server"): a checkout
/// session `/checkout/start` opened here, a purchase already recorded, or one whose price is
/// configured (`plans` or `entitlements`). Anything else paid in the same Stripe account (another
/// product, another deployment) never becomes a purchase, a code or an email.
public struct StripeVouching: Sendable {
    /// The configured prices: every plan's price id and every entitlement's product ids.
    public let prices: Set<String>

    public init(prices: Set<String>) { self.prices = prices }

    /// Whether an object of `priceID` may be recorded, given whether `/checkout/start` opened its
    /// session here or its purchase is already known.
    public func vouches(priceID: String, startedHere: Bool = false, known: Bool = false) -> Bool {
        startedHere || known || prices.contains(priceID)
    }

    /// Throws unless `vouches(...)`.
    /// - Throws: `DomainError` with reason `notVouched`.
    public func require(objectID: String, priceID: String, startedHere: Bool = false, known: Bool = false) throws {
        guard vouches(priceID: priceID, startedHere: startedHere, known: known) else {
            throw DomainError(.notVouched(objectID: objectID, priceID: priceID))
        }
    }
}
