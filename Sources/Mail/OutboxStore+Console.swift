import Domain
import Foundation
import Storage

extension OutboxStore {
    /// The mail to `recipient`, newest first (metadata only: template, status, attempts, times;
    /// never bodies or parameters). Through the `(recipient, created_at)` index.
    /// - Throws: `StorageError`.
    public static func messages(to recipient: String, limit: Int, on connection: Connection) throws -> [OutboxEntry] {
        try connection.query(
            "SELECT \(columns) FROM mail_outbox WHERE recipient = ? ORDER BY created_at DESC, id LIMIT ?", [recipient.lowercased(), limit]
        ).map(entry)
    }

    /// Mail given up on, newest first.
    /// - Throws: `StorageError`.
    public static func failed(limit: Int, on connection: Connection) throws -> [OutboxEntry] {
        try connection.query(
            "SELECT \(columns) FROM mail_outbox WHERE status = 'failed' ORDER BY created_at DESC, id LIMIT ?", [limit]
        ).map(entry)
    }
}
