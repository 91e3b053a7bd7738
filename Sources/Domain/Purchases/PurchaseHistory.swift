import Foundation
import Storage

/// Each change of a purchase's state (status, product, expiry) with what told us, written in
/// the transaction of the change (`PurchaseRepository.apply`, operator actions): the console's
/// history of a purchase.
public enum PurchaseHistory {
    /// What a change came from.
    public enum Source: String, Sendable, CaseIterable {
        case checkout
        case stripeWebhook = "stripe_webhook"
        case storeNotification = "store_notification"
        case storeClaim = "store_claim"
        case reconciler
        case `operator`

        /// The usual messenger of `platform`'s changes.
        public static func `default`(for platform: Platform) -> Source {
            platform == .stripe ? .stripeWebhook : .storeNotification
        }
    }

    /// One change.
    public struct Change: Sendable, Equatable {
        public let purchaseID: String
        public let status: String
        public let productID: String
        public let expiresAt: Date?
        public let source: String
        public let createdAt: Date
    }

    /// Writes `purchase`'s state as it is now, from `source`. The row's id is time-ordered, so a
    /// change appends to the id index instead of writing a random page of it (most of a webhook's
    /// WAL pages before: docs/BENCHMARKS.md, 2026-11-30T11:00Z).
    public static func record(_ purchase: Purchase, source: Source, on connection: Connection, now: Date) throws {
        let id = try EntityID.makeTimeOrdered("ph", at: now)
        try connection.executeDeferred(
            """
            INSERT INTO purchase_history (id, purchase_id, status, product_id, expires_at, source, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)
            """,
            [
                id, purchase.id, purchase.status.rawValue, purchase.productID, purchase.expiresAt.map(Timestamp.milliseconds),
                source.rawValue, Timestamp.milliseconds(now)
            ])
    }

    /// The changes of `purchaseID`, newest first (at most `limit`).
    public static func changes(purchaseID: String, limit: Int, on connection: Connection) throws -> [Change] {
        try connection.query(
            """
            SELECT purchase_id, status, product_id, expires_at, source, created_at FROM purchase_history
            WHERE purchase_id = ? ORDER BY created_at DESC, id DESC LIMIT ?
            """, [purchaseID, limit]
        ).map { row in
            Change(
                purchaseID: try row.string("purchase_id"), status: try row.string("status"), productID: try row.string("product_id"),
                expiresAt: Timestamp.date(try row.optionalInt64("expires_at")), source: try row.string("source"),
                createdAt: Timestamp.date(try row.int64("created_at")))
        }
    }
}
