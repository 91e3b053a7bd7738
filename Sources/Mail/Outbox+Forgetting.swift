import Foundation
import Storage

extension Outbox {
    /// What `forget(recipients:)` changed.
    public struct Forgotten: Sendable, Equatable {
        /// Messages not yet sent that will not be (`failed`, "cancelled").
        public var cancelled = 0
        /// Messages whose record no longer names the address.
        public var erased = 0
    }

    /// Erases `recipients` (lower-cased addresses) from the outbox in the caller's transaction:
    /// mail not yet sent is cancelled (`failed`, never claimed again), and every record of mail
    /// to them keeps no address, name, parameters or error text (an SMTP error may quote the
    /// address). A delivery already in progress may still complete; its row stays `failed`.
    /// - Throws: `StorageError`.
    public static func forget(recipients: Set<String>, on connection: Connection, now: Date) throws -> Forgotten {
        var forgotten = Forgotten()
        let milliseconds = OutboxID.milliseconds(now)
        for recipient in recipients.sorted() {
            forgotten.cancelled +=
                try connection.queryOne(
                    "SELECT COUNT(*) AS n FROM mail_outbox WHERE lower(recipient) = ? AND status IN ('pending', 'sending')", [recipient]
                )?.int("n") ?? 0
            // Every SET expression reads the row as it was before this statement.
            forgotten.erased += try connection.run(
                """
                UPDATE mail_outbox SET
                    status = CASE WHEN status IN ('pending', 'sending') THEN 'failed' ELSE status END,
                    last_error = CASE WHEN status IN ('pending', 'sending') THEN 'cancelled: the account was deleted'
                        WHEN status = 'sent' THEN NULL ELSE 'erased: the account was deleted' END,
                    recipient = '', recipient_name = NULL, parameters = '', updated_at = ?
                WHERE lower(recipient) = ?
                """,
                [milliseconds, recipient])
        }
        return forgotten
    }

    /// Every message to `recipients` (lower-cased addresses), oldest first, as operators see them.
    /// - Throws: `StorageError`.
    public static func entries(to recipients: Set<String>, on connection: Connection) throws -> [OutboxEntry] {
        var entries: [OutboxEntry] = []
        for recipient in recipients.sorted() {
            entries += try connection.query(
                "SELECT \(OutboxStore.columns) FROM mail_outbox WHERE lower(recipient) = ? ORDER BY created_at, id", [recipient]
            ).map(OutboxStore.entry)
        }
        return entries.sorted { $0.createdAt < $1.createdAt }
    }

    /// Deletes up to `limit` of the oldest messages that are done (`sent` or `failed`) and were
    /// queued before `cutoff`, through the `created_at` index. Returns how many went.
    /// - Throws: `StorageError`.
    public static func deleteFinished(queuedBefore cutoff: Date, limit: Int, on connection: Connection) throws -> Int {
        try connection.run(
            """
            DELETE FROM mail_outbox WHERE id IN (
                SELECT id FROM mail_outbox WHERE created_at < ? AND status IN ('sent', 'failed') ORDER BY created_at LIMIT ?\(connection.dialect.skipLockedClause))
            """,
            [OutboxID.milliseconds(cutoff), limit])
    }
}
