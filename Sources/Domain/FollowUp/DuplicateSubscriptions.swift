import Foundation
import Storage

/// "Paid twice" (API.md): an account holding two active auto-renewing subscriptions that grant
/// the same entitlement, from any stores, the same one included. Each pair is recorded once
/// (`duplicate_subscriptions`), when the second of them becomes an active auto-renewing
/// subscription of the account (created, renewed back, or linked there), which is when
/// `purchase.duplicate` is emitted; the console lists the pairs that are still both current.
public enum DuplicateSubscriptions {
    /// Two subscriptions of one account granting `entitlement` (`first` the older by id).
    public struct Pair: Sendable, Equatable {
        public let accountID: String
        public let entitlement: String
        public let first: Purchase
        public let second: Purchase
        public let detectedAt: Date
    }

    /// Whether `purchase` is, at `now`, a subscription that grants access and will renew.
    public static func isActiveAutoRenewing(_ purchase: Purchase, at now: Date) -> Bool {
        guard purchase.expiresAt != nil, purchase.willRenew != false, purchase.isEntitled(at: now) else { return false }
        switch purchase.status {
        case .active, .trialing, .inGracePeriod: return true
        default: return false
        }
    }

    /// Records the pairs `purchase` forms with its account's other active auto-renewing
    /// subscriptions granting one of its entitlements; returns the pairs recorded now (a pair
    /// seen before is not returned again).
    /// - Throws: `StorageError`.
    public static func recordPairs(with purchase: Purchase, catalog: EntitlementCatalog, on connection: Connection, now: Date) throws -> [Pair] {
        guard let accountID = purchase.accountID, isActiveAutoRenewing(purchase, at: now) else { return [] }
        let granted = Set(catalog.entitlementIDs(granting: purchase.productID))
        guard !granted.isEmpty else { return [] }
        var recorded: [Pair] = []
        for other in try PurchaseRepository.forAccount(accountID, on: connection)
        where other.id != purchase.id && isActiveAutoRenewing(other, at: now) {
            guard let shared = catalog.entitlementIDs(granting: other.productID).first(where: granted.contains) else { continue }
            let (first, second) = other.id < purchase.id ? (other, purchase) : (purchase, other)
            let inserted = try connection.run(
                """
                INSERT INTO duplicate_subscriptions (first_purchase_id, second_purchase_id, account_id, entitlement, detected_at)
                VALUES (?, ?, ?, ?, ?) ON CONFLICT (first_purchase_id, second_purchase_id) DO NOTHING
                """,
                [first.id, second.id, accountID, shared, Timestamp.milliseconds(now)])
            if inserted == 1 {
                recorded.append(Pair(accountID: accountID, entitlement: shared, first: first, second: second, detectedAt: now))
            }
        }
        return recorded
    }

    /// The recorded pairs whose two subscriptions are still active, auto-renewing and on one
    /// account, newest first (the console's list).
    /// - Throws: `StorageError`.
    public static func current(on connection: Connection, now: Date, limit: Int) throws -> [Pair] {
        var pairs: [Pair] = []
        let rows = try connection.query(
            "SELECT first_purchase_id, second_purchase_id, entitlement, detected_at FROM duplicate_subscriptions ORDER BY detected_at DESC")
        for row in rows where pairs.count < limit {
            guard let first = try PurchaseRepository.find(id: try row.string("first_purchase_id"), on: connection),
                let second = try PurchaseRepository.find(id: try row.string("second_purchase_id"), on: connection),
                let accountID = first.accountID, second.accountID == accountID,
                isActiveAutoRenewing(first, at: now), isActiveAutoRenewing(second, at: now)
            else { continue }
            pairs.append(
                Pair(
                    accountID: accountID, entitlement: try row.string("entitlement"), first: first, second: second,
                    detectedAt: Timestamp.date(try row.int64("detected_at"))))
        }
        return pairs
    }
}
