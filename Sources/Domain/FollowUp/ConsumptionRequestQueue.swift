import Foundation
import Storage

/// The durable queue of answers owed to Apple's `CONSUMPTION_REQUEST` notifications
/// (`consumption_requests`): one row per refunded-for transaction, queued in the notification's
/// transaction, claimed `FOR UPDATE SKIP LOCKED`, sent once, retried until Apple's 12-hour
/// window closes, then failed.
public enum ConsumptionRequestQueue {
    /// A claimed request.
    public struct Claimed: Sendable, Equatable {
        public let id: String
        public let transactionID: String
        public let originalTransactionID: String?
        /// `Production` or `Sandbox`.
        public let environment: String
        public let attempts: Int
        public let deadline: Date
    }

    /// How a send ended.
    public enum Outcome: Sendable, Equatable {
        case sent
        /// Try again at the date (if it is still within the window), else failed.
        case retry(at: Date, error: String)
        case failed(String)
    }

    /// Apple waits this long for an answer.
    public static let window: TimeInterval = 12 * 3600

    /// Queues the answer for `transactionID` (a repeat of the notification queues nothing).
    /// - Throws: `StorageError`, `CryptoError`.
    public static func enqueue(
        transactionID: String, originalTransactionID: String?, environment: String, on connection: Connection, now: Date
    ) throws {
        let nowMS = Timestamp.milliseconds(now)
        try connection.execute(
            """
            INSERT INTO consumption_requests (id, transaction_id, original_transaction_id, environment, status, attempts,
                next_attempt_at, deadline_at, created_at, updated_at)
            VALUES (?, ?, ?, ?, 'pending', 0, ?, ?, ?, ?) ON CONFLICT (transaction_id) DO NOTHING
            """,
            [
                try EntityID.make("cons"), transactionID, originalTransactionID, environment, nowMS,
                Timestamp.milliseconds(now.addingTimeInterval(window)), nowMS, nowMS
            ])
    }

    /// Claims up to `limit` due requests (pending and due, or sending past `lease`).
    /// - Throws: `StorageError`.
    public static func claim(limit: Int, lease: TimeInterval, on connection: Connection, now: Date) throws -> [Claimed] {
        let nowMS = Timestamp.milliseconds(now)
        return try connection.query(
            """
            UPDATE consumption_requests SET status = 'sending', attempts = attempts + 1, updated_at = ?
            WHERE id IN (
                SELECT id FROM consumption_requests
                WHERE (status = 'pending' AND next_attempt_at <= ?) OR (status = 'sending' AND updated_at <= ?)
                ORDER BY next_attempt_at LIMIT ?\(connection.dialect.skipLockedClause))
            RETURNING id, transaction_id, original_transaction_id, environment, attempts, deadline_at
            """,
            [nowMS, nowMS, Timestamp.milliseconds(now.addingTimeInterval(-lease)), limit]
        ).map { row in
            Claimed(
                id: try row.string("id"), transactionID: try row.string("transaction_id"),
                originalTransactionID: try row.optionalString("original_transaction_id"), environment: try row.string("environment"),
                attempts: try row.int("attempts"), deadline: Timestamp.date(try row.int64("deadline_at")))
        }
    }

    /// Records how the send of `claimed` ended.
    /// - Throws: `StorageError`.
    public static func record(_ claimed: Claimed, _ outcome: Outcome, on connection: Connection, now: Date) throws {
        let nowMS = Timestamp.milliseconds(now)
        switch outcome {
        case .sent:
            try connection.execute(
                "UPDATE consumption_requests SET status = 'sent', sent_at = ?, last_error = NULL, updated_at = ? WHERE id = ?",
                [nowMS, nowMS, claimed.id])
        case .retry(let at, let error) where at < claimed.deadline:
            try connection.execute(
                "UPDATE consumption_requests SET status = 'pending', next_attempt_at = ?, last_error = ?, updated_at = ? WHERE id = ?",
                [Timestamp.milliseconds(at), error, nowMS, claimed.id])
        case .retry(_, let error), .failed(let error):
            try connection.execute(
                "UPDATE consumption_requests SET status = 'failed', last_error = ?, updated_at = ? WHERE id = ?", [error, nowMS, claimed.id])
        }
    }

    /// Whether the app claimed the purchase of the transaction (an account holds it: `/api/v1/iap/*`,
    /// `/receipts`, GoNative).
    /// - Throws: `StorageError`.
    public static func claimedByApp(originalTransactionID: String?, transactionID: String, on connection: Connection) throws -> Bool {
        for id in [originalTransactionID, transactionID].compactMap({ $0 }) {
            if let purchase = try PurchaseRepository.find(platform: .appStore, reference: id, on: connection) {
                return purchase.accountID != nil || purchase.appUserID.map({ !$0.isEmpty }) == true
            }
        }
        return false
    }

    /// When the earliest pending request is due.
    /// - Throws: `StorageError`.
    public static func nextDue(on connection: Connection) throws -> Date? {
        try Timestamp.date(
            connection.queryOne("SELECT MIN(next_attempt_at) AS due FROM consumption_requests WHERE status = 'pending'")?.optionalInt64("due"))
    }

    /// Every request's status by transaction id (tests and operators).
    /// - Throws: `StorageError`.
    public static func statuses(on connection: Connection) throws -> [String: String] {
        var result: [String: String] = [:]
        for row in try connection.query("SELECT transaction_id, status FROM consumption_requests") {
            result[try row.string("transaction_id")] = try row.string("status")
        }
        return result
    }
}
