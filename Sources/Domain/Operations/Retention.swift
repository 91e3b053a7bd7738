import Foundation
import Storage

/// What is kept how long (API.md "Data over time", config `retention.*`), and the deletion of
/// one small batch of what is past it. Purchases, codes' hashes, accounts and the audit log are
/// never deleted here. Each batch is one short statement over an index in time order, so a
/// caller can run it in its own write transaction without holding the writer for long.
public enum Retention {
    /// The tables retention prunes, named as in metrics (`table` label).
    public enum Table: String, CaseIterable, Sendable {
        /// Sessions whose refresh token expired more than `sessions_days` ago.
        case sessions
        /// Web (cookie) sessions expired more than `sessions_days` ago.
        case webSessions = "web_sessions"
        /// Sign-in, confirmation and password links expired more than `sessions_days` ago.
        case authTokens = "auth_tokens"
        /// Stored `Idempotency-Key` replies older than `idempotency_days`.
        case idempotencyKeys = "idempotency_keys"
        /// Events older than `events_days` whose every delivery succeeded (with their deliveries).
        case events
        /// Stripe, Apple and Google event ids older than `webhook_ids_days`.
        case webhookEvents = "webhook_events"
        /// Resend throttles older than a day (and the resend interval).
        case resendThrottle = "resend_throttle"
        /// Console sessions created more than `sessions_days` (and their 12-hour limit) ago: all ended.
        case consoleSessions = "console_sessions"
        /// Reminder unsubscribe tokens older than `mail_days` (the mail that carried them is gone
        /// too) whose purchase has no reminder left to send.
        case reminderUnsubscribes = "reminder_unsubscribes"
    }

    /// Days to keep each kind of row (config `retention`).
    public struct Policy: Sendable, Equatable {
        public var sessionsDays: Int
        public var idempotencyDays: Int
        public var mailDays: Int
        public var eventsDays: Int
        public var webhookIDsDays: Int
        /// The longest resend interval in use (a throttle younger than it still counts).
        public var resendInterval: TimeInterval

        public init(
            sessionsDays: Int = 30, idempotencyDays: Int = 1, mailDays: Int = 30, eventsDays: Int = 30, webhookIDsDays: Int = 90,
            resendInterval: TimeInterval = 600
        ) {
            self.sessionsDays = sessionsDays
            self.idempotencyDays = idempotencyDays
            self.mailDays = mailDays
            self.eventsDays = eventsDays
            self.webhookIDsDays = webhookIDsDays
            self.resendInterval = resendInterval
        }

        /// Rows of `table` older than this (by the table's own clock: expiry, creation, receipt)
        /// are deleted.
        public func cutoff(_ table: Table, now: Date) -> Date {
            switch table {
            case .sessions, .webSessions, .authTokens: now.addingTimeInterval(-Self.days(sessionsDays))
            case .consoleSessions: now.addingTimeInterval(-Self.days(sessionsDays) - ConsoleSessionRepository.absoluteLifetime)
            case .reminderUnsubscribes: mailCutoff(now: now)
            case .idempotencyKeys: now.addingTimeInterval(-Self.days(idempotencyDays))
            case .events: now.addingTimeInterval(-Self.days(eventsDays))
            case .webhookEvents: now.addingTimeInterval(-Self.days(webhookIDsDays))
            case .resendThrottle: now.addingTimeInterval(-max(Self.days(1), resendInterval))
            }
        }

        /// Mail queued before this and done (sent or given up) is deleted.
        public func mailCutoff(now: Date) -> Date { now.addingTimeInterval(-Self.days(mailDays)) }

        static func days(_ count: Int) -> TimeInterval { TimeInterval(count) * 86_400 }
    }

    /// Deletes up to `limit` rows of `table` older than `cutoff`; returns how many went.
    /// - Throws: `StorageError`.
    public static func deleteBatch(_ table: Table, before cutoff: Date, limit: Int, on connection: Connection) throws -> Int {
        let cutoffMS = Timestamp.milliseconds(cutoff)
        switch table {
        case .sessions:
            return try deleteSessions(expiredBefore: cutoff, limit: limit, on: connection)
        case .webSessions:
            return try deleteOldest("web_sessions", key: "id", clock: "expires_at", before: cutoffMS, limit: limit, on: connection)
        case .authTokens:
            return try deleteOldest("auth_tokens", key: "token_hash", clock: "expires_at", before: cutoffMS, limit: limit, on: connection)
        case .idempotencyKeys:
            return try deleteOldest(
                "idempotency_keys", key: "(scope, idempotency_key)", clock: "created_at", before: cutoffMS, limit: limit, on: connection)
        case .events:
            let ids = try connection.query(
                """
                SELECT e.id FROM events e WHERE e.created_at < ?
                AND NOT EXISTS (SELECT 1 FROM event_deliveries d WHERE d.event_id = e.id AND d.status <> 'delivered')
                ORDER BY e.created_at LIMIT ?\(connection.dialect.skipLockedClause)
                """,
                [cutoffMS, limit]
            ).map { try $0.string("id") as any SQLBindable }
            guard !ids.isEmpty else { return 0 }
            let marks = Array(repeating: "?", count: ids.count).joined(separator: ", ")
            try connection.execute("DELETE FROM event_deliveries WHERE event_id IN (\(marks))", ids)
            return try connection.run("DELETE FROM events WHERE id IN (\(marks))", ids)
        case .webhookEvents:
            return try deleteOldest(
                "webhook_events", key: "(source, event_id)", clock: "received_at", before: cutoffMS, limit: limit, on: connection)
        case .resendThrottle:
            return try deleteOldest(
                "resend_throttle", key: "throttle_key", clock: "last_sent_at", before: cutoffMS, limit: limit, on: connection)
        case .consoleSessions:
            return try deleteOldest("console_sessions", key: "id", clock: "created_at", before: cutoffMS, limit: limit, on: connection)
        case .reminderUnsubscribes:
            return try connection.run(
                """
                DELETE FROM reminder_unsubscribes WHERE token_hash IN (
                    SELECT t.token_hash FROM reminder_unsubscribes t WHERE t.created_at < ?
                    AND NOT EXISTS (SELECT 1 FROM buyer_journeys j WHERE j.purchase_id = t.purchase_id AND j.reminder_due_at IS NOT NULL)
                    ORDER BY t.created_at LIMIT ?\(connection.dialect.skipLockedClause))
                """,
                [cutoffMS, limit])
        }
    }

    /// Deletes the `limit` oldest rows of `table` whose `clock` column is before `cutoff`, walking
    /// the index on `clock`; `key` names a row (a column or a row value of the primary key).
    private static func deleteOldest(
        _ table: String, key: String, clock: String, before cutoff: Int64, limit: Int, on connection: Connection
    ) throws -> Int {
        let columns = key.trimmingCharacters(in: CharacterSet(charactersIn: "()"))
        return try connection.run(
            "DELETE FROM \(table) WHERE \(key) IN (SELECT \(columns) FROM \(table) WHERE \(clock) < ? ORDER BY \(clock) LIMIT ?"
                + "\(connection.dialect.skipLockedClause))",
            [cutoff, limit])
    }

    /// Sessions have no index by expiry (each new session would write one more page). Their ids
    /// sort by creation time and every session's refresh token lives `refreshLifetime` from its
    /// creation, so the expired ones are a prefix of the primary key: those created before
    /// `cutoff - refreshLifetime`. Sessions from before time-ordered ids (migration 0250) are
    /// found through their partial index.
    private static func deleteSessions(expiredBefore cutoff: Date, limit: Int, on connection: Connection) throws -> Int {
        let cutoffMS = Timestamp.milliseconds(cutoff)
        let firstLive = EntityID.makeTimeOrdered(
            SessionRepository.idPrefix, at: cutoff.addingTimeInterval(-SessionRepository.refreshLifetime),
            random: [UInt8](repeating: 0, count: EntityID.timeOrderedRandomBytes))
        let deleted = try connection.run(
            """
            DELETE FROM sessions WHERE id IN (
                SELECT id FROM sessions WHERE id < ? AND refresh_expires_at < ? ORDER BY id LIMIT ?\(connection.dialect.skipLockedClause))
            """,
            [firstLive, cutoffMS, limit])
        guard deleted < limit else { return deleted }
        return deleted
            + (try connection.run(
                """
                DELETE FROM sessions WHERE id IN (
                    SELECT id FROM sessions WHERE legacy_access_hash IS NOT NULL AND refresh_expires_at < ? LIMIT ?\(connection.dialect.skipLockedClause))
                """,
                [cutoffMS, limit - deleted]))
    }
}
