import Foundation

/// How long a non-renewing subscription grants access (`products_duration_days`): the App Store
/// gives such a purchase no expiry, so without a configured duration it would be active forever.
public struct ProductDurations: Sendable {
    /// The configuration key that sets `productID`'s duration.
    public static func key(for productID: String) -> String { "products_duration_days.\(productID)" }

    /// Days of access per product id.
    public let days: [String: Int]

    public init(days: [String: Int]) { self.days = days }

    /// `snapshot` with its expiry set from the purchase date when it is a non-renewing purchase,
    /// or a consumable whose product has a duration (`expired` once that has passed); other
    /// snapshots unchanged.
    /// - Throws: `DomainError` with reason `durationMissing` for a non-renewing product without a duration.
    public func applied(to snapshot: PurchaseSnapshot, now: Date) throws -> PurchaseSnapshot {
        let purchasedAt: Date
        let days: Int
        if let bought = snapshot.nonRenewingPurchasedAt {
            guard let configured = self.days[snapshot.productID] else { throw DomainError(.durationMissing(productID: snapshot.productID)) }
            (purchasedAt, days) = (bought, configured)
        } else if let bought = snapshot.consumablePurchasedAt, let configured = self.days[snapshot.productID] {
            (purchasedAt, days) = (bought, configured)
        } else {
            return snapshot
        }
        var result = snapshot
        let expiresAt = purchasedAt.addingTimeInterval(TimeInterval(days) * 86_400)
        result.expiresAt = expiresAt
        if result.status == .active, expiresAt <= now { result.status = .expired }
        return result
    }
}
