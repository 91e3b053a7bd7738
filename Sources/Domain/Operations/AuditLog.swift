import Foundation
import Storage

/// Every operator action (resend, revoke, account deletion) with who did it; written in the
/// action's transaction, never with an email address in full.
public enum AuditLog {
    /// One entry.
    public struct Entry: Sendable, Equatable {
        public let id: String
        public let actor: String
        public let action: String
        public let target: String?
        public let details: String
        public let createdAt: Date

        init(row: Row) throws {
            id = try row.string("id")
            actor = try row.string("actor")
            action = try row.string("action")
            target = try row.optionalString("target")
            details = try row.string("details")
            createdAt = Timestamp.date(try row.int64("created_at"))
        }
    }

    public static func record(actor: String, action: String, target: String?, details: String, on connection: Connection, now: Date) throws {
        try connection.execute(
            "INSERT INTO audit_log (id, actor, action, target, details, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            [try EntityID.make("aud"), actor, action, target, details, Timestamp.milliseconds(now)])
    }

    public static func recent(limit: Int, on connection: Connection) throws -> [Entry] {
        try connection.query(
            "SELECT id, actor, action, target, details, created_at FROM audit_log ORDER BY created_at DESC, id DESC LIMIT ?", [limit]
        ).map(Entry.init(row:))
    }
}
