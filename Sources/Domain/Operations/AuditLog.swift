import Foundation
import Storage

/// Every operator action (resend, revoke, account deletion, console actions) with who did it,
/// why and from where; written in the action's transaction, never with an email address in full.
public enum AuditLog {
    /// One entry.
    public struct Entry: Sendable, Equatable {
        public let id: String
        public let actor: String
        public let action: String
        public let target: String?
        public let details: String
        /// Why, as the operator typed it (console actions; nil for older entries and the CLI).
        public let reason: String?
        /// The client address the action came from (nil on the host).
        public let clientAddress: String?
        public let createdAt: Date

        init(row: Row) throws {
            id = try row.string("id")
            actor = try row.string("actor")
            action = try row.string("action")
            target = try row.optionalString("target")
            details = try row.string("details")
            reason = try row.optionalString("reason")
            clientAddress = try row.optionalString("client_address")
            createdAt = Timestamp.date(try row.int64("created_at"))
        }
    }

    static let columns = "id, actor, action, target, details, reason, client_address, created_at"

    public static func record(
        actor: String, action: String, target: String?, details: String, reason: String? = nil, clientAddress: String? = nil,
        on connection: Connection, now: Date
    ) throws {
        // Time-ordered: entries append to the id index.
        let id = try EntityID.makeTimeOrdered("aud", at: now)
        try connection.execute(
            "INSERT INTO audit_log (id, actor, action, target, details, reason, client_address, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [id, actor, action, target, details, reason, clientAddress, Timestamp.milliseconds(now)])
    }

    /// `record` for `actor` (its name, reason and address).
    public static func record(_ actor: AuditActor, action: String, target: String?, details: String, on connection: Connection, now: Date) throws {
        try record(
            actor: actor.name, action: action, target: target, details: details, reason: actor.reason, clientAddress: actor.clientAddress,
            on: connection, now: now)
    }

    public static func recent(limit: Int, on connection: Connection) throws -> [Entry] {
        try connection.query("SELECT \(columns) FROM audit_log ORDER BY created_at DESC, id DESC LIMIT ?", [limit]).map(Entry.init(row:))
    }

    /// The newest entries about any of `targets` (an account, its purchases, its codes), newest first.
    public static func about(_ targets: [String], limit: Int, on connection: Connection) throws -> [Entry] {
        guard !targets.isEmpty else { return [] }
        let marks = Array(repeating: "?", count: targets.count).joined(separator: ", ")
        return try connection.query(
            "SELECT \(columns) FROM audit_log WHERE target IN (\(marks)) ORDER BY created_at DESC, id DESC LIMIT ?",
            targets.map { $0 as any SQLBindable } + [limit]
        ).map(Entry.init(row:))
    }

    /// A page of entries, newest first, optionally of one actor or one action, older than
    /// `before` (the `created_at` of the previous page's last entry, in milliseconds).
    public static func page(actor: String?, action: String?, target: String? = nil, before: Int64?, limit: Int, on connection: Connection) throws
        -> [Entry]
    {
        var conditions: [String] = []
        var arguments: [any SQLBindable] = []
        if let actor { conditions.append("actor = ?"); arguments.append(actor) }
        if let action { conditions.append("action = ?"); arguments.append(action) }
        if let target { conditions.append("target = ?"); arguments.append(target) }
        if let before { conditions.append("created_at < ?"); arguments.append(before) }
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        arguments.append(limit)
        return try connection.query("SELECT \(columns) FROM audit_log \(filter) ORDER BY created_at DESC, id DESC LIMIT ?", arguments)
            .map(Entry.init(row:))
    }
}
