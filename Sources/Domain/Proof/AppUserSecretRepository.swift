import Foundation
import Storage

/// The install secrets bound to app users (`app_user_secrets`), stored as their hashes. A secret
/// is bound by the call that creates its app user, further ones only with a bearer of the account
/// (at most `redemption.max_devices`); signing a device out, signing out everywhere, eviction and
/// the operator's "forget secrets" unbind them.
public enum AppUserSecretRepository {
    /// Hashes of the secrets bound to `appUserID`.
    /// - Throws: `StorageError`.
    public static func hashes(appUserID: String, on connection: Connection) throws -> [String] {
        try connection.query("SELECT secret_hash FROM app_user_secrets WHERE app_user_id = ?", [appUserID])
            .map { try $0.string("secret_hash") }
    }

    /// What a call naming `appUserID` with `presented` (and a bearer of `bearerAccountID`) proves.
    /// - Throws: `StorageError`.
    public static func proof(
        appUserID: String, presented: InstallSecret?, bearerAccountID: String?, on connection: Connection
    ) throws -> AppUserProof {
        let row = try connection.queryOne("SELECT account_id FROM app_users WHERE app_user_id = ?", [appUserID])
        let accountID = try row?.string("account_id")
        return AppUserProof.judge(
            exists: row != nil, bound: row == nil ? [] : try hashes(appUserID: appUserID, on: connection), presented: presented,
            bearerHoldsIt: bearerAccountID != nil && bearerAccountID == accountID)
    }

    /// Binds `secret` to `appUserID` for `deviceID` (idempotent). The caller decides it may: the
    /// call created the app user, or a bearer of its account asks, within `maxDevices`.
    /// - Throws: `StorageError`.
    public static func bind(_ secret: InstallSecret, appUserID: String, deviceID: String?, on connection: Connection, now: Date) throws {
        try connection.execute(
            """
            INSERT INTO app_user_secrets (app_user_id, secret_hash, device_id, created_at) VALUES (?, ?, ?, ?)
            ON CONFLICT (app_user_id, secret_hash) DO NOTHING
            """,
            [appUserID, secret.hash, deviceID, Timestamp.milliseconds(now)])
    }

    /// Binds a further secret with a bearer of the app user's account, when fewer than `maxDevices`
    /// are bound; returns whether it is bound now.
    /// - Throws: `StorageError`.
    public static func bindWithBearer(
        _ secret: InstallSecret, appUserID: String, deviceID: String?, maxDevices: Int, on connection: Connection, now: Date
    ) throws -> Bool {
        let bound = try hashes(appUserID: appUserID, on: connection)
        if bound.contains(secret.hash) { return true }
        guard bound.count < max(maxDevices, 1) else { return false }
        try bind(secret, appUserID: appUserID, deviceID: deviceID, on: connection, now: now)
        return true
    }

    /// Unbinds the secrets kept for `deviceID` by the app users of `accountID` (a device signed out
    /// or evicted). Returns how many.
    /// - Throws: `StorageError`.
    @discardableResult
    public static func unbind(accountID: String, deviceID: String, on connection: Connection) throws -> Int {
        let appUser = deviceID.hasPrefix("app_user:") ? String(deviceID.dropFirst("app_user:".count)) : nil
        return try connection.run(
            """
            DELETE FROM app_user_secrets WHERE app_user_id IN (SELECT app_user_id FROM app_users WHERE account_id = ?)
            AND (device_id = ? OR (device_id IS NULL AND app_user_id = ?))
            """,
            [accountID, deviceID, appUser])
    }

    /// Unbinds every secret of every app user of `accountID` (signing out everywhere, "forget
    /// secrets"). Returns how many.
    /// - Throws: `StorageError`.
    @discardableResult
    public static func unbindAll(accountID: String, on connection: Connection) throws -> Int {
        try connection.run(
            "DELETE FROM app_user_secrets WHERE app_user_id IN (SELECT app_user_id FROM app_users WHERE account_id = ?)", [accountID])
    }

    /// Whether any app user of `accountID` has a secret bound.
    /// - Throws: `StorageError`.
    public static func anyBound(accountID: String, on connection: Connection) throws -> Bool {
        try connection.queryOne(
            """
            SELECT 1 AS found FROM app_user_secrets s JOIN app_users u ON u.app_user_id = s.app_user_id
            WHERE u.account_id = ? LIMIT 1
            """,
            [accountID]) != nil
    }
}
