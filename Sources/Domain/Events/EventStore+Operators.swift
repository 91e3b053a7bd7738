import Foundation
import Storage

/// What operators see of events and may do with them.
extension EventStore {
    /// One event and its delivery to one endpoint, as operators see it.
    public struct Entry: Sendable, Equatable {
        public let eventID: String
        public let type: String
        public let accountID: String?
        public let sequence: Int64
        public let occurredAt: Date
        public let endpointID: String
        /// `pending` (`sending` included), `delivered` or `failed`.
        public let status: String
        public let attempts: Int
        public let lastStatus: Int?
        public let lastError: String?
        public let nextAttemptAt: Date?
        public let deliveredAt: Date?
    }

    /// The statuses an operator may filter by.
    public static let statuses = ["pending", "delivered", "failed"]

    /// The newest deliveries first, optionally only those with `status` (`pending` includes
    /// those being sent); `limit` is clamped to 1…1000.
    /// - Throws: `StorageError`.
    public static func entries(status: String?, limit: Int, on connection: Connection) throws -> [Entry] {
        let limit = min(max(limit, 1), 1000)
        let select = """
            SELECT e.id AS event_id, e.type AS type, e.account_id AS account_id, e.sequence AS sequence, e.occurred_at AS occurred_at,
                d.endpoint_id AS endpoint_id, d.status AS status, d.attempts AS attempts, d.last_status AS last_status,
                d.last_error AS last_error, d.next_attempt_at AS next_attempt_at, d.delivered_at AS delivered_at
            FROM event_deliveries d JOIN events e ON e.id = d.event_id
            """
        let rows: [Row]
        switch status {
        case nil:
            rows = try connection.query(select + " ORDER BY d.created_at DESC, d.id DESC LIMIT ?", [limit])
        case "pending"?:
            rows = try connection.query(
                select + " WHERE d.status IN ('pending', 'sending') ORDER BY d.created_at DESC, d.id DESC LIMIT ?", [limit])
        case let status?:
            rows = try connection.query(select + " WHERE d.status = ? ORDER BY d.created_at DESC, d.id DESC LIMIT ?", [status, limit])
        }
        return try rows.map { row in
            let status = try row.string("status")
            return Entry(
                eventID: try row.string("event_id"), type: try row.string("type"), accountID: try row.optionalString("account_id"),
                sequence: try row.int64("sequence"), occurredAt: Timestamp.date(try row.int64("occurred_at")),
                endpointID: try row.string("endpoint_id"), status: status == "sending" ? "pending" : status,
                attempts: try row.int("attempts"), lastStatus: try row.optionalInt64("last_status").map { Int($0) },
                lastError: try row.optionalString("last_error"),
                nextAttemptAt: status == "pending" ? Timestamp.date(try row.int64("next_attempt_at")) : nil,
                deliveredAt: Timestamp.date(try row.optionalInt64("delivered_at")))
        }
    }

    /// Queues every delivery of `eventID` again, due now, with a fresh retry window (a delivery
    /// being sent right now is left alone). Returns how many were queued; nil for an unknown event.
    /// - Throws: `StorageError`.
    public static func redeliver(eventID: String, retryWindow: TimeInterval, on connection: Connection, now: Date) throws -> Int? {
        guard try connection.queryOne("SELECT id FROM events WHERE id = ?", [eventID]) != nil else { return nil }
        let nowMS = Timestamp.milliseconds(now)
        return try connection.run(
            """
            UPDATE event_deliveries SET status = 'pending', next_attempt_at = ?, deadline_at = ?, updated_at = ?
            WHERE event_id = ? AND status <> 'sending'
            """, [nowMS, Timestamp.milliseconds(now.addingTimeInterval(retryWindow)), nowMS, eventID])
    }
}
