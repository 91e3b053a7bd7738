import Foundation
import Storage

/// Enqueuing email in the caller's own transaction.
public enum Outbox {
    /// Adds `message` to `mail_outbox` as `pending`, due at `now`, with a new id and a stable
    /// `Message-ID` (`<id@messageIDDomain>`). Call it inside the `database.write` that makes the
    /// change causing the email, so both commit or neither does. A message whose idempotency key
    /// is already in the outbox is not added again (`.duplicate`).
    /// - Throws: `MailError` (permanent) for an empty key or template name, `StorageError` from the
    ///   database (the caller's transaction then rolls back). With a `cipher` the parameters
    ///   are stored sealed.
    public static func enqueue(
        _ message: OutboxMessage, on connection: Connection, now: Date, messageIDDomain: String = "tollgate.localhost",
        cipher: OutboxCipher? = nil
    ) throws -> EnqueueResult {
        guard !message.idempotencyKey.isEmpty else { throw MailError.permanent("the idempotency key is empty") }
        guard !message.template.isEmpty else { throw MailError.permanent("the template name is empty") }
        let id = OutboxID.make()
        let messageID = "<\(id)@\(messageIDDomain)>"
        var parameters: String
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            parameters = String(decoding: try encoder.encode(message.parameters), as: UTF8.self)
        } catch {
            throw MailError.permanent("the template parameters cannot be encoded as JSON")
        }
        if let cipher { parameters = try cipher.seal(parameters, outboxID: id) }
        let milliseconds = OutboxID.milliseconds(now)
        let inserted = try connection.run(
            """
            INSERT INTO mail_outbox (id, idempotency_key, template, recipient, recipient_name, parameters, parameters_key_id, status,
                attempts, next_attempt_at, message_id, created_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?, ?)
            ON CONFLICT (idempotency_key) DO NOTHING
            """,
            [
                id, message.idempotencyKey, message.template, message.recipient, message.recipientName, parameters, cipher?.keyID,
                milliseconds, messageID, milliseconds, milliseconds
            ])
        if inserted == 1 { return .enqueued(id: id) }
        let existing = try connection.queryOne("SELECT id FROM mail_outbox WHERE idempotency_key = ?", [message.idempotencyKey])
        return .duplicate(id: try existing?.string("id") ?? "")
    }
}

/// Outbox ids and timestamps.
enum OutboxID {
    /// 32 lowercase hex characters from the system's secure random source.
    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        let high = generator.next() as UInt64
        let low = generator.next() as UInt64
        return hex(high) + hex(low)
    }

    private static func hex(_ value: UInt64) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: 16 - text.count) + text
    }

    /// Milliseconds since 1970.
    static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }

    /// The date of a millisecond timestamp.
    static func date(_ milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}
