import Foundation
import Storage

/// One row per paid web purchase (`buyer_journeys`): when it was paid (the provider's time), when
/// its success page (or redirect) was first served, when it was first redeemed or linked to an
/// account, and where its reminders stand. The funnel reads it; the reminder worker finds what
/// is due through a partial index on `reminder_due_at`, which a linked, ended or unsubscribed
/// purchase leaves (so the scan never grows with redeemed purchases).
public enum BuyerJourneyRepository {
    /// A journey as the reminder worker sees it.
    public struct Due: Sendable, Equatable {
        public let purchaseID: String
        public let paidAt: Date
        public let step: Int
    }

    /// Starts the journey of a purchase paid at `paidAt` (a repeat does nothing). `linked`: the
    /// checkout linked it to an app user at once (no reminders then).
    /// - Throws: `StorageError`.
    public static func start(
        purchaseID: String, paidAt: Date, linked: Bool, schedule: ReminderSchedule, on connection: Connection, now: Date
    ) throws {
        let due = linked ? nil : schedule.due(step: 0, paidAt: paidAt)
        try connection.execute(
            """
            INSERT INTO buyer_journeys (purchase_id, paid_at, linked_at, reminder_step, reminder_due_at, created_at)
            VALUES (?, ?, ?, 0, ?, ?) ON CONFLICT (purchase_id) DO NOTHING
            """,
            [
                purchaseID, Timestamp.milliseconds(paidAt), linked ? Timestamp.milliseconds(now) : nil,
                due.map(Timestamp.milliseconds), Timestamp.milliseconds(now)
            ])
    }

    /// Records the first redemption or link of a purchase (any path: `PurchaseRepository.link`)
    /// and ends its reminders. Only the first counts.
    /// - Throws: `StorageError`.
    public static func markLinked(purchaseID: String, on connection: Connection, now: Date) throws {
        try connection.execute(
            "UPDATE buyer_journeys SET linked_at = ?, reminder_due_at = NULL WHERE purchase_id = ? AND linked_at IS NULL",
            [Timestamp.milliseconds(now), purchaseID])
    }

    /// Whether the success page (or redirect) of the purchase was served before.
    /// - Throws: `StorageError`.
    public static func successSeen(purchaseID: String, on connection: Connection) throws -> Bool {
        let row = try connection.queryOne("SELECT success_seen_at FROM buyer_journeys WHERE purchase_id = ?", [purchaseID])
        guard let row else { return true }  // no journey (a purchase from before): nothing to record
        return try row.optionalInt64("success_seen_at") != nil
    }

    /// Records the first time the success page (or redirect) was served.
    /// - Throws: `StorageError`.
    public static func markSuccessSeen(purchaseID: String, on connection: Connection, now: Date) throws {
        try connection.execute(
            "UPDATE buyer_journeys SET success_seen_at = ? WHERE purchase_id = ? AND success_seen_at IS NULL",
            [Timestamp.milliseconds(now), purchaseID])
    }

    /// Up to `limit` journeys whose next reminder is due at `now`, locked for this transaction
    /// (skipping those another instance holds on PostgreSQL), through `buyer_journeys_reminder_due`.
    /// - Throws: `StorageError`.
    public static func claimDue(limit: Int, on connection: Connection, now: Date) throws -> [Due] {
        try connection.query(dueScanSQL + connection.dialect.skipLockedClause, [Timestamp.milliseconds(now), limit]).map { row in
            Due(purchaseID: try row.string("purchase_id"), paidAt: Timestamp.date(try row.int64("paid_at")), step: try row.int("reminder_step"))
        }
    }

    /// The due scan (its query plan is in docs/BENCHMARKS.md): the partial index on what is due,
    /// never the redeemed journeys.
    public static let dueScanSQL = """
        SELECT purchase_id, paid_at, reminder_step FROM buyer_journeys
        WHERE reminder_due_at IS NOT NULL AND reminder_due_at <= ? ORDER BY reminder_due_at LIMIT ?
        """

    /// Moves the journey's reminders on to `step`, due at `due` (nil: none left).
    /// - Throws: `StorageError`.
    public static func advance(purchaseID: String, step: Int, due: Date?, on connection: Connection) throws {
        try connection.execute(
            "UPDATE buyer_journeys SET reminder_step = ?, reminder_due_at = ? WHERE purchase_id = ?",
            [step, due.map(Timestamp.milliseconds), purchaseID])
    }

    /// Ends the purchase's reminders; `unsubscribed` also records that the buyer asked.
    /// - Throws: `StorageError`.
    public static func stopReminders(purchaseID: String, unsubscribed: Bool, on connection: Connection, now: Date) throws {
        if unsubscribed {
            try connection.execute(
                "UPDATE buyer_journeys SET reminder_due_at = NULL, reminders_stopped_at = COALESCE(reminders_stopped_at, ?) WHERE purchase_id = ?",
                [Timestamp.milliseconds(now), purchaseID])
        } else {
            try connection.execute("UPDATE buyer_journeys SET reminder_due_at = NULL WHERE purchase_id = ?", [purchaseID])
        }
    }

    /// Whether the buyer unsubscribed from the purchase's reminders.
    /// - Throws: `StorageError`.
    public static func unsubscribed(purchaseID: String, on connection: Connection) throws -> Bool {
        try connection.queryOne("SELECT reminders_stopped_at FROM buyer_journeys WHERE purchase_id = ?", [purchaseID])?
            .optionalInt64("reminders_stopped_at") != nil
    }

    /// When the earliest reminder is due (nil: none), through the due index.
    /// - Throws: `StorageError`.
    public static func nextDue(on connection: Connection) throws -> Date? {
        try Timestamp.date(
            connection.queryOne("SELECT MIN(reminder_due_at) AS due FROM buyer_journeys WHERE reminder_due_at IS NOT NULL")?
                .optionalInt64("due"))
    }

    /// Takes up to `limit` first redemptions not yet observed by the time-to-redeem histogram,
    /// marking them observed in this transaction (each is observed by one instance once); returns
    /// the seconds from payment to each.
    /// - Throws: `StorageError`.
    public static func takeUnobservedRedemptions(limit: Int, on connection: Connection) throws -> [TimeInterval] {
        let rows = try connection.query(
            """
            UPDATE buyer_journeys SET linked_observed = 1 WHERE purchase_id IN (
                SELECT purchase_id FROM buyer_journeys WHERE linked_at IS NOT NULL AND linked_observed = 0
                LIMIT ?\(connection.dialect.skipLockedClause))
            RETURNING paid_at, linked_at
            """,
            [limit])
        return try rows.map { row in
            Double(max(0, try row.int64("linked_at") - row.int64("paid_at"))) / 1000
        }
    }

    /// One purchase of the funnel's cohort.
    public struct CohortRow: Sendable, Equatable {
        public let paidAt: Date
        public let successSeenAt: Date?
        public let linkedAt: Date?
        /// Refunded or revoked by its provider.
        public let refunded: Bool

        public init(paidAt: Date, successSeenAt: Date?, linkedAt: Date?, refunded: Bool) {
            self.paidAt = paidAt
            self.successSeenAt = successSeenAt
            self.linkedAt = linkedAt
            self.refunded = refunded
        }
    }

    /// The web purchases paid in `[from, to]` that are neither redeemed nor linked, oldest first,
    /// through `buyer_journeys_paid` (the console's "paid but not redeemed" list; refunded ones
    /// are the caller's to drop).
    /// - Throws: `StorageError`.
    public static func unredeemed(paidFrom from: Date, to: Date, limit: Int, on connection: Connection) throws -> [Purchase] {
        try connection.query(
            """
            SELECT \(Purchase.columns) FROM purchases WHERE id IN (
                SELECT purchase_id FROM buyer_journeys WHERE paid_at >= ? AND paid_at <= ? AND linked_at IS NULL ORDER BY paid_at LIMIT ?)
            ORDER BY created_at
            """,
            [Timestamp.milliseconds(from), Timestamp.milliseconds(to), limit]
        ).map(Purchase.init(row:))
    }

    /// The web purchases paid in `[from, to]`, through `buyer_journeys_paid`.
    /// - Throws: `StorageError`.
    public static func cohort(from: Date, to: Date, on connection: Connection) throws -> [CohortRow] {
        try connection.query(
            """
            SELECT j.paid_at, j.success_seen_at, j.linked_at, p.status FROM buyer_journeys j
            JOIN purchases p ON p.id = j.purchase_id
            WHERE j.paid_at >= ? AND j.paid_at <= ?
            """,
            [Timestamp.milliseconds(from), Timestamp.milliseconds(to)]
        ).map { row in
            let status = try row.string("status")
            return CohortRow(
                paidAt: Timestamp.date(try row.int64("paid_at")), successSeenAt: Timestamp.date(try row.optionalInt64("success_seen_at")),
                linkedAt: Timestamp.date(try row.optionalInt64("linked_at")),
                refunded: status == PurchaseStatus.refunded.rawValue || status == PurchaseStatus.revoked.rawValue)
        }
    }
}
