import Foundation
import Storage

/// What needs an operator's attention, from the domain's tables: web purchases paid over 24 h
/// ago whose code was never redeemed, event deliveries given up, link-out reports failed or
/// pending for over 24 h. Newest first, capped; each by an index.
public enum AttentionRecords {
    /// How long a purchase may wait for its redemption, or a report to be sent, before it needs attention.
    public static let grace: TimeInterval = 86400

    /// Web purchases that grant access, paid before `now - grace`, with no redeemed code.
    public static func unredeemed(now: Date, limit: Int, on connection: Connection) throws -> [Purchase] {
        try connection.query(
            """
            SELECT \(Purchase.columns) FROM purchases p
            WHERE p.platform = 'stripe' AND p.created_at < ? AND p.erased_at IS NULL
                AND p.status IN ('active', 'trialing', 'in_grace_period', 'billing_retry')
                AND NOT EXISTS (SELECT 1 FROM redemption_codes c WHERE c.purchase_id = p.id AND c.status = 'redeemed')
            ORDER BY p.created_at DESC LIMIT ?
            """, [Timestamp.milliseconds(now.addingTimeInterval(-grace)), limit]
        ).map(Purchase.init(row:))
    }

    /// Event deliveries that were given up, with the event's type and account.
    public struct FailedDelivery: Sendable, Equatable {
        public let id: String
        public let eventID: String
        public let eventType: String
        public let accountID: String?
        public let lastError: String?
        public let createdAt: Date
    }

    public static func failedDeliveries(limit: Int, on connection: Connection) throws -> [FailedDelivery] {
        try connection.query(
            """
            SELECT d.id, d.event_id, e.type, e.account_id, d.last_error, d.created_at FROM event_deliveries d JOIN events e ON e.id = d.event_id
            WHERE d.status = 'failed' ORDER BY d.created_at DESC LIMIT ?
            """, [limit]
        ).map { row in
            FailedDelivery(
                id: try row.string("id"), eventID: try row.string("event_id"), eventType: try row.string("type"),
                accountID: try row.optionalString("account_id"),
                lastError: try row.optionalString("last_error"), createdAt: Timestamp.date(try row.int64("created_at")))
        }
    }

    /// Link-out reports that failed, or still wait after `grace`.
    public static func stuckReports(now: Date, limit: Int, on connection: Connection) throws -> [BuyerRecords.Report] {
        let failed = try connection.query(
            "SELECT id, purchase_id, kind, status, last_error, created_at FROM link_out_reports WHERE status = 'failed' ORDER BY created_at DESC LIMIT ?",
            [limit])
        let pending = try connection.query(
            """
            SELECT id, purchase_id, kind, status, last_error, created_at FROM link_out_reports
            WHERE status = 'pending' AND created_at < ? ORDER BY created_at DESC LIMIT ?
            """, [Timestamp.milliseconds(now.addingTimeInterval(-grace)), limit])
        return Array(try (failed + pending).map(BuyerRecords.report).sorted { $0.createdAt > $1.createdAt }.prefix(limit))
    }
}
