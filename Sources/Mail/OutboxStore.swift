import Domain
import Foundation
import Storage

/// Read access to the outbox for operators (`GET /admin/v1/outbox`, `tollgate admin outbox`).
public struct OutboxStore: Sendable {
    /// The database holding `mail_outbox`.
    public let database: Database

    /// A store over `database`.
    public init(database: Database) {
        self.database = database
    }

    /// The newest entries first, optionally only those with `status`; `limit` is clamped to
    /// 1…1000. Never returns bodies, parameters or full addresses.
    /// - Throws: `StorageError`.
    public func outboxEntries(status: OutboxStatus?, limit: Int) async throws -> [OutboxEntry] {
        let limit = min(max(limit, 1), 1000)
        return try await database.read { connection in
            let rows: [Row]
            if let status {
                rows = try connection.query(
                    "SELECT \(Self.columns) FROM mail_outbox WHERE status = ? ORDER BY created_at DESC, id LIMIT ?",
                    [status.rawValue, limit])
            } else {
                rows = try connection.query("SELECT \(Self.columns) FROM mail_outbox ORDER BY created_at DESC, id LIMIT ?", [limit])
            }
            return try rows.map(Self.entry)
        }
    }

    /// The entry with `id`, or nil.
    /// - Throws: `StorageError`.
    public func entry(id: String) async throws -> OutboxEntry? {
        try await database.read { connection in
            try connection.queryOne("SELECT \(Self.columns) FROM mail_outbox WHERE id = ?", [id]).map(Self.entry)
        }
    }

    /// How many messages wait (`pending` or `sending`) and how many were given up (`failed`), for
    /// `/metrics`. Counted through the `(status, next_attempt_at)` index; sent mail is not counted.
    /// - Throws: `StorageError`.
    public func depth() async throws -> OutboxDepth {
        try await database.read { connection in
            func count(_ status: OutboxStatus) throws -> Int {
                try connection.queryOne("SELECT COUNT(*) AS n FROM mail_outbox WHERE status = ?", [status.rawValue])?.int("n") ?? 0
            }
            return OutboxDepth(waiting: try count(.pending) + count(.sending), failed: try count(.failed))
        }
    }

    static let columns =
        "id, template, recipient, status, attempts, last_error, message_id, created_at, updated_at, next_attempt_at, sent_at"

    static func entry(_ row: Row) throws -> OutboxEntry {
        let statusText = try row.string("status")
        return OutboxEntry(
            id: try row.string("id"),
            template: try row.string("template"),
            maskedRecipient: EmailMask.mask(try row.string("recipient")),
            status: OutboxStatus(rawValue: statusText) ?? .failed,
            attempts: try row.int("attempts"),
            lastError: try row.optionalString("last_error"),
            messageID: try row.string("message_id"),
            createdAt: OutboxID.date(try row.int64("created_at")),
            updatedAt: OutboxID.date(try row.int64("updated_at")),
            nextAttemptAt: OutboxID.date(try row.int64("next_attempt_at")),
            sentAt: try row.optionalInt64("sent_at").map(OutboxID.date))
    }
}

/// The outbox figures `/metrics` shows.
public struct OutboxDepth: Sendable, Equatable {
    /// Messages not yet accepted by the transport (`pending` or `sending`).
    public var waiting: Int
    /// Messages given up on (`failed`).
    public var failed: Int
}
