/// "Formed by" (API.md "Who may act for an account"): whether an account is still only what one
/// purchase made of it, so that the purchase's redemption code may act for it. A pure rule over
/// facts read in one place (`AccountFormation.Facts.read`), tested without a database.
public enum AccountFormation {
    /// What the rule looks at, for one account.
    public struct Facts: Sendable, Equatable {
        /// A purchase the account holds.
        public struct HeldPurchase: Sendable, Equatable {
            public let id: String
            public let platform: Platform
            public let customerID: String?
            /// Linked by a caller that proved nothing about the account.
            public let linkedWithoutProof: Bool

            public init(id: String, platform: Platform, customerID: String?, linkedWithoutProof: Bool) {
                self.id = id
                self.platform = platform
                self.customerID = customerID
                self.linkedWithoutProof = linkedWithoutProof
            }
        }

        /// An app user pointing at the account, and the purchase it joined through (its checkout or
        /// its code), if any.
        public struct Member: Sendable, Equatable {
            public let appUserID: String
            public let joinedThroughPurchaseID: String?

            public init(appUserID: String, joinedThroughPurchaseID: String?) {
                self.appUserID = appUserID
                self.joinedThroughPurchaseID = joinedThroughPurchaseID
            }
        }

        public var purchases: [HeldPurchase]
        public var members: [Member]
        public var hasConfirmedAddress: Bool
        /// A password somebody set (a generated one, seed 004's, does not count).
        public var hasChosenPassword: Bool
        public var isDeleted: Bool
        /// An operator granted the account an entitlement (`ManualEntitlement`), live or ended.
        public var hasManualGrant: Bool

        public init(
            purchases: [HeldPurchase], members: [Member], hasConfirmedAddress: Bool, hasChosenPassword: Bool, isDeleted: Bool,
            hasManualGrant: Bool = false
        ) {
            self.purchases = purchases
            self.members = members
            self.hasConfirmedAddress = hasConfirmedAddress
            self.hasChosenPassword = hasChosenPassword
            self.isDeleted = isDeleted
            self.hasManualGrant = hasManualGrant
        }
    }

    /// Whether the account described by `facts` was formed by purchase `purchase` (with its Stripe
    /// customer, whose renewals, plan changes and re-subscriptions count as it): every purchase it
    /// holds is that one or was linked without proof, no address is confirmed, nobody chose a
    /// password, no operator granted it an entitlement, and every app user on it joined through
    /// that purchase.
    public static func isFormed(by purchase: Facts.HeldPurchase, facts: Facts) -> Bool {
        guard !facts.isDeleted, !facts.hasConfirmedAddress, !facts.hasChosenPassword, !facts.hasManualGrant else { return false }
        let family = facts.purchases.filter { isSame($0, as: purchase) }.map(\.id) + [purchase.id]
        for held in facts.purchases where !family.contains(held.id) && !held.linkedWithoutProof { return false }
        for member in facts.members {
            guard let joined = member.joinedThroughPurchaseID, family.contains(joined) else { return false }
        }
        return true
    }

    /// P itself, or a Stripe purchase of P's Stripe customer.
    static func isSame(_ held: Facts.HeldPurchase, as purchase: Facts.HeldPurchase) -> Bool {
        if held.id == purchase.id { return true }
        guard held.platform == .stripe, purchase.platform == .stripe, let customer = purchase.customerID else { return false }
        return held.customerID == customer
    }
}
