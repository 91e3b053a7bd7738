import Crypto
import Foundation
import Storage

/// Issues, finds and retires redemption codes. One live code per purchase: issuing a new one
/// replaces the live one (a resend), in the same transaction.
public enum CodeRepository {
    /// A code just issued: the plaintext exists only in this value (and the sealed box).
    public struct Issued: Sendable {
        public let record: RedemptionCodeRecord
        public let code: RedemptionCode
    }

    /// Issues a fresh code for `purchaseID`, replacing its live code if any.
    public static func issue(purchaseID: String, ttl: TimeInterval, vault: CodeVault, on connection: Connection, now: Date) throws -> Issued {
        let nowMS = Timestamp.milliseconds(now)
        // Issuers of one purchase's codes take turns (its next `seq`), at any isolation.
        try connection.lockKey("codes:" + purchaseID)
        try connection.execute(
            "UPDATE redemption_codes SET status = 'replaced', updated_at = ? WHERE purchase_id = ? AND status = 'live'",
            [nowMS, purchaseID])
        let id = try EntityID.make("code")
        let code = try RedemptionCode.generate()
        try connection.execute(
            """
            INSERT INTO redemption_codes (id, purchase_id, seq, code_hash, code_sha256, code_sealed, code_key_id, hint, status, expires_at, created_at, updated_at)
            VALUES (?, ?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM redemption_codes WHERE purchase_id = ?), ?, ?, ?, ?, ?, 'live', ?, ?, ?)
            """,
            [
                id, purchaseID, purchaseID, try vault.keyedHash(code), try vault.hash(code), try vault.seal(code, codeID: id), vault.keyID,
                String(code.canonical.suffix(4)),
                Timestamp.milliseconds(now.addingTimeInterval(ttl)), nowMS, nowMS
            ])
        return Issued(record: try require(id: id, on: connection), code: code)
    }

    /// The record of `code`, whatever its status.
    public static func find(code: RedemptionCode, vault: CodeVault, on connection: Connection) throws -> RedemptionCodeRecord? {
        try find(codeHash: vault.hash(code), on: connection) ?? findLegacy(hashes: vault.legacyHashes(code), lock: false, on: connection)
    }

    /// The code `key` names: by its SHA-256, or (a row written before key ids) by its keyed hash.
    /// - Throws: `StorageError`.
    public static func find(key: CodeKey, on connection: Connection) throws -> RedemptionCodeRecord? {
        try find(codeHash: key.hash, on: connection) ?? findLegacy(hashes: key.legacyHashes(), lock: false, on: connection)
    }

    /// `find(key:)`, its row held until the transaction ends (`findLocking(codeHash:)`).
    /// - Throws: `StorageError`.
    public static func findLocking(key: CodeKey, on connection: Connection) throws -> RedemptionCodeRecord? {
        try findLocking(codeHash: key.hash, on: connection) ?? findLegacy(hashes: key.legacyHashes(), lock: true, on: connection)
    }

    /// A row from before `code_sha256` whose keyed `code_hash` is one of `hashes`.
    static func findLegacy(hashes: [String], lock: Bool, on connection: Connection) throws -> RedemptionCodeRecord? {
        guard !hashes.isEmpty else { return nil }
        let marks = hashes.map { _ in "?" }.joined(separator: ", ")
        return try connection.queryOne(
            "SELECT \(RedemptionCodeRecord.columns) FROM redemption_codes WHERE code_sha256 IS NULL AND code_hash IN (\(marks))"
                + (lock ? connection.dialect.rowLockClause : ""), hashes.map { $0 as any SQLBindable }
        ).map(RedemptionCodeRecord.init(row:))
    }

    /// The code whose `CodeVault.hash` (SHA-256) is `codeHash`.
    public static func find(codeHash: String, on connection: Connection) throws -> RedemptionCodeRecord? {
        try connection.queryOne("SELECT \(RedemptionCodeRecord.columns) FROM redemption_codes WHERE code_sha256 = ?", [codeHash])
            .map(RedemptionCodeRecord.init(row:))
    }

    /// The code with `codeHash`, its row held until the transaction ends: redemptions of one
    /// code take turns, and each reads what the last one committed (PostgreSQL `FOR UPDATE`).
    /// - Throws: `StorageError`.
    public static func findLocking(codeHash: String, on connection: Connection) throws -> RedemptionCodeRecord? {
        try connection.queryOne(
            "SELECT \(RedemptionCodeRecord.columns) FROM redemption_codes WHERE code_sha256 = ?" + connection.dialect.rowLockClause, [codeHash]
        ).map(RedemptionCodeRecord.init(row:))
    }

    public static func find(id: String, on connection: Connection) throws -> RedemptionCodeRecord? {
        try connection.queryOne("SELECT \(RedemptionCodeRecord.columns) FROM redemption_codes WHERE id = ?", [id])
            .map(RedemptionCodeRecord.init(row:))
    }

    /// - Throws: `DomainError(.notFound)`.
    public static func require(id: String, on connection: Connection) throws -> RedemptionCodeRecord {
        guard let record = try find(id: id, on: connection) else { throw DomainError(.notFound, "no code \(id)") }
        return record
    }

    /// The newest code of a purchase (any status), for the success page and operators.
    public static func latest(purchaseID: String, on connection: Connection) throws -> RedemptionCodeRecord? {
        try connection.queryOne(
            "SELECT \(RedemptionCodeRecord.columns) FROM redemption_codes WHERE purchase_id = ? ORDER BY seq DESC LIMIT 1",
            [purchaseID]
        ).map(RedemptionCodeRecord.init(row:))
    }

    /// Every code of the purchases of `email`, newest first (operators).
    public static func forEmail(_ email: String, on connection: Connection) throws -> [RedemptionCodeRecord] {
        try connection.query(
            """
            SELECT \(RedemptionCodeRecord.columns) FROM redemption_codes
            WHERE purchase_id IN (SELECT id FROM purchases WHERE purchaser_email = ?) ORDER BY created_at DESC, purchase_id, seq DESC
            """,
            [email.lowercased()]
        ).map(RedemptionCodeRecord.init(row:))
    }

    /// Marks a code redeemed by an account (first redemption only).
    public static func markRedeemed(id: String, accountID: String, appUserID: String?, on connection: Connection, now: Date) throws {
        let nowMS = Timestamp.milliseconds(now)
        try connection.execute(
            """
            UPDATE redemption_codes SET status = 'redeemed', redeemed_at = ?, redeemed_account_id = ?, redeemed_app_user_id = ?,
                updated_at = ? WHERE id = ? AND status = 'live'
            """,
            [nowMS, accountID, appUserID, nowMS, id])
    }

    /// Points a redeemed code at the account that now holds its purchase (a transfer).
    public static func reassign(id: String, accountID: String, on connection: Connection, now: Date) throws {
        try connection.execute(
            "UPDATE redemption_codes SET redeemed_account_id = ?, updated_at = ? WHERE id = ?",
            [accountID, Timestamp.milliseconds(now), id])
    }

    /// Revokes a code; returns false when it was already revoked.
    public static func revoke(id: String, on connection: Connection, now: Date) throws -> Bool {
        try connection.run(
            "UPDATE redemption_codes SET status = 'revoked', updated_at = ? WHERE id = ? AND status <> 'revoked'",
            [Timestamp.milliseconds(now), id]) > 0
    }

    /// Opens the sealed copy of a code (to show it again on the success page).
    public static func reveal(_ record: RedemptionCodeRecord, vault: CodeVault) throws -> RedemptionCode {
        try vault.open(record.sealed, codeID: record.id)
    }
}
