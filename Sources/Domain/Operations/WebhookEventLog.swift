import Foundation
import Storage

/// Notifications already applied, by source and event id (Stripe `evt_`, Apple
/// `notificationUUID`, Play `messageId`): a repeat does nothing twice.
public enum WebhookEventLog {
    /// Records the event; false when it was recorded before (a duplicate). Call in the same
    /// transaction as the event's effects so a crash never records an event it did not apply.
    public static func record(source: String, eventID: String, type: String, on connection: Connection, now: Date) throws -> Bool {
        try connection.run(insert, [source, eventID, type, Timestamp.milliseconds(now)]) > 0
    }

    /// Records the event as a claim (`SQLConnection.executeDeferredClaim`): on PostgreSQL the
    /// insert rides with the effects' first statement instead of a round trip of its own. A
    /// duplicate throws `StorageError.claimRefused` (`isDuplicate`) where that becomes known, and the write,
    /// which must let it out, rolls back whatever the effects did before.
    public static func claim(source: String, eventID: String, type: String, on connection: Connection, now: Date) throws {
        try connection.executeDeferredClaim(insert, [source, eventID, type, Timestamp.milliseconds(now)])
    }

    /// Whether `error` is the refusal of an event's claim: the event was recorded before.
    public static func isDuplicate(_ error: StorageError) -> Bool { error.isClaimRefused && error.sql == insert }

    private static let insert = """
        INSERT INTO webhook_events (source, event_id, event_type, received_at) VALUES (?, ?, ?, ?)
        ON CONFLICT (source, event_id) DO NOTHING
        """

    /// Whether the event was recorded before.
    public static func contains(source: String, eventID: String, on connection: Connection) throws -> Bool {
        try connection.queryOne("SELECT 1 AS seen FROM webhook_events WHERE source = ? AND event_id = ?", [source, eventID]) != nil
    }

    /// Which of `ids` were recorded before (one query per 500 ids): a catch-up read skips them
    /// without a write each.
    public static func recorded(source: String, among ids: [String], on connection: Connection) throws -> Set<String> {
        var seen: Set<String> = []
        var start = 0
        while start < ids.count {
            let chunk = Array(ids[start..<min(start + 500, ids.count)])
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
            for row in try connection.query(
                "SELECT event_id FROM webhook_events WHERE source = ? AND event_id IN (\(marks))", [source] + chunk)
            {
                seen.insert(try row.string("event_id"))
            }
            start += chunk.count
        }
        return seen
    }
}
