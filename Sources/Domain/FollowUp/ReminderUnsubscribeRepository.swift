import Crypto
import Foundation
import Storage

/// The one-click unsubscribe tokens of reminder mails (RFC 8058): one per reminder, 256 random
/// bits, stored only as their SHA-256 (`reminder_unsubscribes`), used once.
public enum ReminderUnsubscribeRepository {
    /// A new token for a reminder of `purchaseID`; the plaintext exists only in the return value
    /// (and the sealed mail parameters).
    /// - Throws: `CryptoError`, `StorageError`.
    public static func issue(purchaseID: String, on connection: Connection, now: Date) throws -> String {
        let token = try OpaqueToken.generate()
        try connection.execute(
            "INSERT INTO reminder_unsubscribes (token_hash, purchase_id, created_at) VALUES (?, ?, ?)",
            [try hash(token), purchaseID, Timestamp.milliseconds(now)])
        return token
    }

    /// The purchase of an unused token; nil for an unknown, malformed or used one.
    /// - Throws: `StorageError`.
    public static func purchase(ofUnused token: String, on connection: Connection) throws -> String? {
        guard let key = try lookupHash(token) else { return nil }
        let row = try connection.queryOne("SELECT purchase_id, used_at FROM reminder_unsubscribes WHERE token_hash = ?", [key])
        guard let row, try row.optionalInt64("used_at") == nil else { return nil }
        return try row.string("purchase_id")
    }

    /// Uses the token: its purchase's reminders stop. Nil (nothing changed) for an unknown,
    /// malformed or used token.
    /// - Throws: `StorageError`.
    public static func use(_ token: String, on connection: Connection, now: Date) throws -> String? {
        guard let key = try lookupHash(token) else { return nil }
        let row = try connection.queryOne(
            "UPDATE reminder_unsubscribes SET used_at = ? WHERE token_hash = ? AND used_at IS NULL RETURNING purchase_id",
            [Timestamp.milliseconds(now), key])
        guard let purchaseID = try row?.string("purchase_id") else { return nil }
        try BuyerJourneyRepository.stopReminders(purchaseID: purchaseID, unsubscribed: true, on: connection, now: now)
        return purchaseID
    }

    /// The stored form of a token that has the shape of one (43 base64url characters).
    private static func lookupHash(_ token: String) throws -> String? {
        guard token.utf8.count == 43, token.utf8.allSatisfy({ Self.alphabet.contains($0) }) else { return nil }
        return try hash(token)
    }

    static func hash(_ token: String) throws -> String {
        Hex.encode(try SHA256.hash(Array(("reminder-unsubscribe:" + token).utf8)))
    }

    private static let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
}
