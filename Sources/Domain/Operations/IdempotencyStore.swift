import Foundation
import Storage

/// Remembers the first answer to a POST with an `Idempotency-Key`, so a repeat with the same
/// key and body gets the same answer back (kept at least 24 h).
public enum IdempotencyStore {
    /// A stored answer.
    public struct Stored: Sendable, Equatable {
        public let requestHash: String
        public let status: Int
        public let contentType: String
        public let body: [UInt8]

        public init(requestHash: String, status: Int, contentType: String, body: [UInt8]) {
            self.requestHash = requestHash
            self.status = status
            self.contentType = contentType
            self.body = body
        }
    }

    public static let retention: TimeInterval = 24 * 3600

    public static func find(scope: String, key: String, on connection: Connection, now: Date) throws -> Stored? {
        guard
            let row = try connection.queryOne(
                """
                SELECT request_hash, status, content_type, body FROM idempotency_keys
                WHERE scope = ? AND idempotency_key = ? AND created_at > ?
                """,
                [scope, key, Timestamp.milliseconds(now.addingTimeInterval(-retention))])
        else { return nil }
        return Stored(
            requestHash: try row.string("request_hash"), status: try row.int("status"),
            contentType: try row.string("content_type"), body: try row.blob("body"))
    }

    /// Stores the answer (first writer wins; an expired entry is replaced).
    /// - Parameter keyID: the id of the key that sealed `answer.body` (`KeyedBox`), stored beside it.
    public static func store(scope: String, key: String, answer: Stored, keyID: String? = nil, on connection: Connection, now: Date) throws {
        let nowMS = Timestamp.milliseconds(now)
        try connection.execute(
            """
            INSERT INTO idempotency_keys (scope, idempotency_key, request_hash, status, content_type, body, body_key_id, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (scope, idempotency_key) DO UPDATE SET request_hash = excluded.request_hash, status = excluded.status,
                content_type = excluded.content_type, body = excluded.body, body_key_id = excluded.body_key_id, created_at = excluded.created_at
            WHERE idempotency_keys.created_at <= ?
            """,
            [
                scope, key, answer.requestHash, answer.status, answer.contentType, answer.body, keyID, nowMS,
                Timestamp.milliseconds(now.addingTimeInterval(-retention))
            ])
    }

    /// Deletes entries past retention; returns how many.
    public static func prune(on connection: Connection, now: Date) throws -> Int {
        try connection.run(
            "DELETE FROM idempotency_keys WHERE created_at <= ?", [Timestamp.milliseconds(now.addingTimeInterval(-retention))])
    }
}
