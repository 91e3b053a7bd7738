import Foundation

/// Maps products to entitlements as configured (`entitlements`: id → product ids) and
/// computes which entitlements a set of purchases grants.
public struct EntitlementCatalog: Sendable {
    private let productsByEntitlement: [(id: String, products: Set<String>)]

    public init(_ mapping: [String: [String]]) {
        productsByEntitlement = mapping.keys.sorted().map { (id: $0, products: Set(mapping[$0] ?? [])) }
    }

    /// The ids of the entitlements `productID` grants, sorted.
    public func entitlementIDs(granting productID: String) -> [String] {
        productsByEntitlement.filter { $0.products.contains(productID) }.map(\.id)
    }

    /// The entitlements `purchases` grant at `now`, sorted by id. An entitlement any purchase
    /// maps to is listed; it is active when at least one of those purchases is entitled, and
    /// expires with the latest of them (nil when one never expires).
    public func entitlements(for purchases: [Purchase], at now: Date) -> [Entitlement] {
        var result: [Entitlement] = []
        for (id, products) in productsByEntitlement {
            let matching = purchases.filter { products.contains($0.productID) }
            guard !matching.isEmpty else { continue }
            let entitled = matching.filter { $0.isEntitled(at: now) }
            if entitled.isEmpty {
                let latest = matching.max { ($0.expiresAt ?? .distantPast) < ($1.expiresAt ?? .distantPast) } ?? matching[0]
                result.append(Entitlement(
                    id: id, active: false, expiresAt: latest.expiresAt, source: latest.platform, willRenew: latest.willRenew,
                    renewsToProductID: latest.renewsToProductID))
            } else {
                let neverEnds = entitled.first { $0.expiresAt == nil }
                let latest = neverEnds ?? entitled.max { ($0.expiresAt ?? .distantPast) < ($1.expiresAt ?? .distantPast) } ?? entitled[0]
                result.append(Entitlement(
                    id: id, active: true, expiresAt: neverEnds == nil ? latest.expiresAt : nil, source: latest.platform,
                    willRenew: latest.willRenew, renewsToProductID: latest.renewsToProductID))
            }
        }
        return result
    }
}
