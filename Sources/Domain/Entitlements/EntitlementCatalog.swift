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
        /// Whether `purchases[index]` expires after the one at `current` (true when none is yet);
        /// one that never expires counts as long past, as the order of "latest" has always had it.
        func expiresLater(_ index: Int, than current: Int?) -> Bool {
            guard let current else { return true }
            return (purchases[current].expiresAt ?? .distantPast) < (purchases[index].expiresAt ?? .distantPast)
        }
        for (id, products) in productsByEntitlement {
            // One pass over the purchases by index (filtered copies of them retained every field).
            var latest: Int?, latestEntitled: Int?, neverEnds: Int?
            for index in purchases.indices where products.contains(purchases[index].productID) {
                if expiresLater(index, than: latest) { latest = index }
                guard purchases[index].isEntitled(at: now) else { continue }
                if neverEnds == nil, purchases[index].expiresAt == nil { neverEnds = index }
                if expiresLater(index, than: latestEntitled) { latestEntitled = index }
            }
            let granted = manual.filter { $0.entitlement == id && $0.isActive(at: now) }.map(\.endsAt).max()
            if let granted, latestEntitled == nil {
                result.append(Entitlement(id: id, active: true, expiresAt: granted, source: nil))
                continue
            }
            guard let latest else { continue }
            // The one granting it: one that never ends, else the entitled one ending last, else
            // (none entitled) the one that ended last; the first of equals.
            let source = neverEnds ?? latestEntitled ?? latest
            let expires: Date?
            if neverEnds != nil {
                expires = nil
            } else if latestEntitled == nil {
                expires = purchases[source].expiresAt
            } else {
                expires = [purchases[source].expiresAt, granted].compactMap { $0 }.max()
            }
            result.append(
                Entitlement(
                    id: id, active: latestEntitled != nil, expiresAt: expires, source: purchases[source].platform,
                    willRenew: purchases[source].willRenew, renewsToProductID: purchases[source].renewsToProductID))
        }
        return result
    }
}
