import Foundation

/// Maps products to entitlements as configured (`entitlements`: id → product ids) and
/// computes which entitlements a set of purchases (and operators' manual grants) gives.
public struct EntitlementCatalog: Sendable {
    private let productsByEntitlement: [(id: String, products: Set<String>)]

    public init(_ mapping: [String: [String]]) {
        productsByEntitlement = mapping.keys.sorted().map { (id: $0, products: Set(mapping[$0] ?? [])) }
    }

    /// The ids of the entitlements `productID` grants, sorted.
    public func entitlementIDs(granting productID: String) -> [String] {
        productsByEntitlement.filter { $0.products.contains(productID) }.map(\.id)
    }

    /// The configured entitlement ids, sorted.
    public var ids: [String] { productsByEntitlement.map(\.id) }

    /// Whether config names the entitlement `id`.
    public func knows(_ id: String) -> Bool { productsByEntitlement.contains { $0.id == id } }

    /// The entitlements `purchases` and `manual` grants give at `now`, sorted by id. An
    /// entitlement any purchase maps to, or a manual grant holding now names, is listed; it is
    /// active when at least one of those purchases is entitled or a grant holds, and expires with
    /// the latest of them (nil when a purchase never expires). Its source is the store of the
    /// purchase that grants it; `manual` (nil) when only a grant does.
    public func entitlements(for purchases: [Purchase], manual: [ManualEntitlement] = [], at now: Date) -> [Entitlement] {
        var result: [Entitlement] = []
        for (id, products) in productsByEntitlement {
            let matching = purchases.filter { products.contains($0.productID) }
            let granted = manual.filter { $0.entitlement == id && $0.isActive(at: now) }.map(\.endsAt).max()
            let entitled = matching.filter { $0.isEntitled(at: now) }
            if let granted, entitled.isEmpty {
                result.append(Entitlement(id: id, active: true, expiresAt: granted, source: nil))
                continue
            }
            guard !matching.isEmpty else { continue }
            if entitled.isEmpty {
                let latest = matching.max { ($0.expiresAt ?? .distantPast) < ($1.expiresAt ?? .distantPast) } ?? matching[0]
                result.append(
                    Entitlement(
                        id: id, active: false, expiresAt: latest.expiresAt, source: latest.platform, willRenew: latest.willRenew,
                        renewsToProductID: latest.renewsToProductID))
            } else {
                let neverEnds = entitled.first { $0.expiresAt == nil }
                let latest = neverEnds ?? entitled.max { ($0.expiresAt ?? .distantPast) < ($1.expiresAt ?? .distantPast) } ?? entitled[0]
                let expires = neverEnds == nil ? [latest.expiresAt, granted].compactMap { $0 }.max() : nil
                result.append(
                    Entitlement(
                        id: id, active: true, expiresAt: expires, source: latest.platform,
                        willRenew: latest.willRenew, renewsToProductID: latest.renewsToProductID))
            }
        }
        return result
    }
}
