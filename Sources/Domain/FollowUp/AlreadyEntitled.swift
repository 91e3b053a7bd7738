import Foundation

/// An entitlement a buyer already holds, actively, that a plan would grant again (API.md
/// "Already entitled"): where it was bought, so the buyer is sent to manage it there instead of
/// paying twice. A pure rule over the buyer's purchases and operators' manual grants.
public struct AlreadyEntitled: Sendable, Equatable {
    /// The entitlement held (`premium`).
    public let entitlement: String
    /// The store of the purchase that grants it; nil when only an operator's manual grant does.
    public let platform: Platform?
    /// That purchase's product (Play's manage link names it); empty for a manual grant.
    public let productID: String

    public init(entitlement: String, platform: Platform?, productID: String) {
        self.entitlement = entitlement
        self.platform = platform
        self.productID = productID
    }

    /// The first of `granted` held actively through `purchases` (or a `manual` grant) at `now`,
    /// when every one of `granted` is held (a plan that grants more passes); nil otherwise or
    /// when it grants nothing. A purchase that holds it is named before a manual grant.
    public static func find(
        granted: [String], purchases: [Purchase], manual: [ManualEntitlement] = [], catalog: EntitlementCatalog, now: Date
    ) -> AlreadyEntitled? {
        guard !granted.isEmpty else { return nil }
        var holdings: [String: AlreadyEntitled] = [:]
        for purchase in purchases where purchase.isEntitled(at: now) {
            for id in catalog.entitlementIDs(granting: purchase.productID) where holdings[id] == nil {
                holdings[id] = AlreadyEntitled(entitlement: id, platform: purchase.platform, productID: purchase.productID)
            }
        }
        for grant in manual where grant.isActive(at: now) && holdings[grant.entitlement] == nil {
            holdings[grant.entitlement] = AlreadyEntitled(entitlement: grant.entitlement, platform: nil, productID: "")
        }
        guard granted.allSatisfy({ holdings[$0] != nil }) else { return nil }
        return holdings[granted.sorted()[0]]
    }
}
