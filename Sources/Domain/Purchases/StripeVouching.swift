/// Which Stripe objects this deployment can vouch for (API.md "Server-to-server"): a checkout
/// session `/checkout/start` opened here, a purchase already recorded, or one whose price is
/// configured (`plans` or `entitlements`). Anything else paid in the same Stripe account (another
/// product, another deployment) never becomes a purchase, a code or an email.
public struct StripeVouching: Sendable {
    /// A Stripe object this deployment does not vouch for: acknowledged, logged, nothing stored.
    public struct NotVouched: Error, Sendable, CustomStringConvertible {
        public let objectID: String
        public let priceID: String

        public init(objectID: String, priceID: String) {
            self.objectID = objectID
            self.priceID = priceID
        }

        public var description: String {
            "\(objectID) (price \(priceID)) was not started here and its price is in neither plans nor entitlements"
        }
    }

    /// The configured prices: every plan's price id and every entitlement's product ids.
    public let prices: Set<String>

    public init(prices: Set<String>) { self.prices = prices }

    /// Whether an object of `priceID` may be recorded, given whether `/checkout/start` opened its
    /// session here or its purchase is already known.
    public func vouches(priceID: String, startedHere: Bool = false, known: Bool = false) -> Bool {
        startedHere || known || prices.contains(priceID)
    }

    /// Throws unless `vouches(...)`.
    /// - Throws: `NotVouched`.
    public func require(objectID: String, priceID: String, startedHere: Bool = false, known: Bool = false) throws {
        guard vouches(priceID: priceID, startedHere: startedHere, known: known) else {
            throw NotVouched(objectID: objectID, priceID: priceID)
        }
    }
}
