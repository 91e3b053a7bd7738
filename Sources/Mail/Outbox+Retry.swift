import Foundation
import Storage

extension Outbox {
    /// Queues a failed message again, due now, with its attempts counted afresh (an operator's
    /// retry); false when no failed message has `id`.
    /// - Throws: `StorageError`.
    public static func retry(id: String, on connection: Connection, now: Date) throws -> Bool {
        let milliseconds = OutboxID.milliseconds(now)
        return try connection.queryOne(
            """
            UPDATE mail_outbox SET status = 'pending', attempts = 0, next_attempt_at = ?, updated_at = ?
            WHERE id = ? AND status = 'failed' RETURNING id
            """, [milliseconds, milliseconds, id]) != nil
    }
}
