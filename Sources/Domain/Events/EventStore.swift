import Foundation
import Storage

/// The delivery side of `events` / `event_deliveries`: claiming due work, recording outcomes,
/// and what operators see and do.
///
/// Claiming: on SQLite the single writer serializes claims, so `claim` is one
/// `UPDATE ... WHERE id IN (SELECT ... LIMIT n) RETURNING`. On PostgreSQL several instances
/// claim at once: the inner select becomes `SELECT id FROM event_deliveries WHERE ... ORDER BY
/// next_attempt_at LIMIT n FOR UPDATE SKIP LOCKED`, so each row goes to one instance and none
/// waits on another's rows; a `sending` row whose lease (`updated_at`) ran out is claimable
/// again, so an instance that dies hands its work on within the lease.
public enum EventStore {
    /// A delivery claimed for sending.
    public struct Claimed: Sendable, Equatable {
        /// The delivery row.
        public let id: String
        /// The event id: the `webhook-id` of every attempt.
        public let eventID: String
        public let endpointID: String
        /// Attempts so far, this one included.
        public let attempts: Int
        public let deadline: Date
        /// The exact bytes to sign and send.
        public let body: String
    }

    /// How a delivery attempt ended.
    public enum Outcome: Sendable, Equatable {
        /// A 2xx answer.
        case delivered(status: Int)
        /// Anything else: retry at `retryAt`, or give up (`failed`) when nil.
        case failed(status: Int?, error: String, retryAt: Date?)
    }

    /// Claims up to `limit` due deliveries for `endpointID`: status `sending`, attempts + 1.
    /// A delivery left `sending` for longer than `lease` (its claimer died) is due again.
    /// - Throws: `StorageError`.
    public static func claim(endpointID: String, limit: Int, lease: TimeInterval, on connection: Connection, now: Date) throws -> [Claimed] {
        let nowMS = Timestamp.milliseconds(now)
        // Two statements, each walking the (endpoint_id, status, next_attempt_at) index in order:
        // one `OR` over both states, or a tie-break column, made SQLite sort every due row per claim.
        try connection.execute(
            "UPDATE event_deliveries SET status = 'pending' WHERE endpoint_id = ? AND status = 'sending' AND updated_at <= ?",
            [endpointID, nowMS - Int64(lease * 1000)])
        let rows = try connection.query(
            """
            UPDATE event_deliveries SET status = 'sending', attempts = attempts + 1, updated_at = ?
            WHERE id IN (
                SELECT id FROM event_deliveries WHERE endpoint_id = ? AND status = 'pending' AND next_attempt_at <= ?
                ORDER BY next_attempt_at LIMIT ?\(connection.dialect.skipLockedClause))
            RETURNING id, event_id, endpoint_id, attempts, deadline_at
            """,
            [nowMS, endpointID, nowMS, limit])
        guard !rows.isEmpty else { return [] }
        let eventIDs = try rows.map { try $0.string("event_id") }
        let placeholders = Array(repeating: "?", count: eventIDs.count).joined(separator: ", ")
        var bodies: [String: String] = [:]
        for row in try connection.query("SELECT id, body FROM events WHERE id IN (\(placeholders))", eventIDs) {
            bodies[try row.string("id")] = try row.string("body")
        }
        return try rows.compactMap { row in
            let eventID = try row.string("event_id")
            guard let body = bodies[eventID] else { return nil }
            return Claimed(
                id: try row.string("id"), eventID: eventID, endpointID: try row.string("endpoint_id"), attempts: try row.int("attempts"),
                deadline: Timestamp.date(try row.int64("deadline_at")), body: body)
        }.sorted { $0.eventID < $1.eventID }
    }

    /// Records the outcomes of attempts (one transaction for a batch).
    /// - Throws: `StorageError`.
    public static func record(_ outcomes: [(deliveryID: String, outcome: Outcome, latencyMS: Int)], on connection: Connection, now: Date) throws {
        let nowMS = Timestamp.milliseconds(now)
        for (id, outcome, latency) in outcomes {
            switch outcome {
            case .delivered(let status):
                try connection.execute(
                    """
                    UPDATE event_deliveries SET status = 'delivered', last_status = ?, last_error = NULL, last_latency_ms = ?,
                        updated_at = ?, delivered_at = ? WHERE id = ?
                    """, [status, latency, nowMS, nowMS, id])
            case .failed(let status, let error, let retryAt):
                try connection.execute(
                    """
                    UPDATE event_deliveries SET status = ?, next_attempt_at = ?, last_status = ?, last_error = ?, last_latency_ms = ?,
                        updated_at = ? WHERE id = ?
                    """,
                    [
                        retryAt == nil ? "failed" : "pending", retryAt.map(Timestamp.milliseconds) ?? nowMS, status,
                        String(error.prefix(300)), latency, nowMS, id
                    ])
            }
        }
    }

    /// Returns every `sending` delivery to `pending` (the process that claimed them stopped),
    /// keeping its attempt count. Run once at start by the only worker of a SQLite database; on
    /// PostgreSQL another instance may be sending them right now, so nothing is done there and
    /// the lease returns what a dead instance left.
    /// - Throws: `StorageError`.
    @discardableResult
    public static func recoverAbandoned(on connection: Connection, now: Date) throws -> Int {
        guard connection.dialect == .sqlite else { return 0 }
        return try connection.run(
            "UPDATE event_deliveries SET status = 'pending', updated_at = ? WHERE status = 'sending'", [Timestamp.milliseconds(now)])
    }

    /// Fails every unfinished delivery to an endpoint that is no longer configured (its URL was
    /// removed or changed), so it does not wait forever; returns how many.
    /// - Throws: `StorageError`.
    @discardableResult
    public static func failOrphans(keeping endpointIDs: [String], on connection: Connection, now: Date) throws -> Int {
        let placeholders = endpointIDs.isEmpty ? "''" : Array(repeating: "?", count: endpointIDs.count).joined(separator: ", ")
        return try connection.run(
            """
            UPDATE event_deliveries SET status = 'failed', last_error = 'the endpoint is no longer configured', updated_at = ?
            WHERE status IN ('pending', 'sending') AND endpoint_id NOT IN (\(placeholders))
            """, [Timestamp.milliseconds(now) as any SQLBindable] + endpointIDs.map { $0 as any SQLBindable })
    }

    /// When the next pending delivery for `endpointID` is due, if any.
    /// - Throws: `StorageError`.
    public static func nextDue(endpointID: String, on connection: Connection) throws -> Date? {
        let row = try connection.queryOne(
            "SELECT MIN(next_attempt_at) AS due FROM event_deliveries WHERE endpoint_id = ? AND status = 'pending'", [endpointID])
        return Timestamp.date(try row?.optionalInt64("due"))
    }

    /// Deliveries by status (`pending` counts `sending` too), for `/metrics`.
    /// - Throws: `StorageError`.
    public static func counts(on connection: Connection) throws -> [String: Int] {
        var counts: [String: Int] = ["pending": 0, "delivered": 0, "failed": 0]
        for row in try connection.query("SELECT status, COUNT(*) AS n FROM event_deliveries GROUP BY status") {
            let status = try row.string("status") == "sending" ? "pending" : try row.string("status")
            counts[status, default: 0] += try row.int("n")
        }
        return counts
    }
}
