import Foundation

/// An entitlement a buyer already holds, actively, that a plan would grant again (API.md
/// "Already entitled"): where it was bought, so the buyer is sent to manage it there instead of
/// paying twice. A pure rule over the buyer's purchases.
public struct AlreadyEntitled: Sendable, Equatable {
    /// The entitlement held (`premium`).
    public let entitlement: String
    /// The store of the purchase that grants it.
    public let platform: Platform
    /// That purchase's product (Play's manage link names it).
    public let productID: String

    public init(entitlement: String, platform: Platform, productID: String) {
        self.entitlement = entitlement
        self.platform = platform
        self.productID = productID
    }

    /// The first of `granted` held actively through `purchases` at `now`, when every one of
    /// `granted` is held (a plan that grants more passes); nil otherwise or when it grants nothing.
    public static func find(granted: [String], purchases: [Purchase], catalog: EntitlementCatalog, now: Date) -> AlreadyEntitled? {
        guard !granted.isEmpty else { return nil }
        var holdings: [String: Purchase] = [:]
        for purchase in purchases where purchase.isEntitled(at: now) {
            for id in catalog.entitlementIDs(granting: purchase.productID) where holdings[id] == nil {
                holdings[id] = purchase
            }
        }
        guard granted.allSatisfy({ holdings[$0] != nil }) else { return nil }
        let first = granted.sorted()[0]
        guard let purchase = holdings[first] else { return nil }
        return AlreadyEntitled(entitlement: first, platform: purchase.platform, productID: purchase.productID)
    }
}
