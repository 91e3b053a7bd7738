import Foundation
import Storage

/// Store subscriptions whose recorded period ended without news: the purchase still says it runs
/// (or that the store is retrying the payment), but its `expires_at` has passed. Either a renewal
/// or an ending was missed; the reconciler asks the store once per period end
/// (`reconciled_expiry` remembers which end it asked about), before access is taken for good.
public enum LapsedPurchases {
    /// Statuses that mean "still running, as far as we were told".
    static let running: [PurchaseStatus] = [.active, .trialing, .inGracePeriod, .canceled, .billingRetry]

    /// Up to `limit` purchases of `platform` whose expiry is in `[oldest, now)` and whose store was
    /// not asked about that expiry yet, oldest expiry first.
    public static func due(platform: Platform, now: Date, oldest: Date, limit: Int, on connection: Connection) throws -> [Purchase] {
        let statuses = running.map { "'\($0.rawValue)'" }.joined(separator: ", ")
        return try connection.query(
            """
            SELECT \(Purchase.columns) FROM purchases
            WHERE platform = ? AND expires_at < ? AND expires_at >= ? AND status IN (\(statuses)) AND erased_at IS NULL
                AND (reconciled_expiry IS NULL OR reconciled_expiry <> expires_at)
            ORDER BY expires_at LIMIT ?
            """,
            [platform.rawValue, Timestamp.milliseconds(now), Timestamp.milliseconds(oldest), Int64(limit)]
        ).map(Purchase.init(row:))
    }

    /// Remembers that the store was asked about the purchase's period ending at `expiry`.
    public static func markAsked(purchaseID: String, expiry: Date, on connection: Connection) throws {
        try connection.execute("UPDATE purchases SET reconciled_expiry = ? WHERE id = ?", [Timestamp.milliseconds(expiry), purchaseID])
    }
}
