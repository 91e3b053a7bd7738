import Foundation
import Storage

/// Accounts and the app users (`app_user_id`, the SDK's user) that point at them.
public enum AccountRepository {
    /// Creates an account. Call inside a write transaction.
    public static func create(email: String? = nil, secrets: DomainSecrets, on connection: Connection, now: Date) throws -> Account {
        let id = try EntityID.make("acc")
        let nowMS = Timestamp.milliseconds(now)
        try connection.execute(
            "INSERT INTO accounts (id, obfuscated_id, email, email_verified, created_at, updated_at) VALUES (?, ?, ?, 0, ?, ?)",
            [id, try secrets.obfuscatedIDs.uuid(for: id), email?.lowercased(), nowMS, nowMS])
        return try require(id: id, on: connection)
    }

    public static func find(id: String, on connection: Connection) throws -> Account? {
        try connection.queryOne("SELECT \(Account.columns) FROM accounts WHERE id = ?", [id]).map(Account.init(row:))
    }

    public static func find(obfuscatedID: String, on connection: Connection) throws -> Account? {
        try connection.queryOne("SELECT \(Account.columns) FROM accounts WHERE obfuscated_id = ?", [obfuscatedID.lowercased()])
            .map(Account.init(row:))
    }

    /// - Throws: `DomainError(.notFound)`.
    public static func require(id: String, on connection: Connection) throws -> Account {
        guard let account = try find(id: id, on: connection) else { throw DomainError(.notFound, "no account \(id)") }
        return account
    }

    /// The account of `appUserID`, or nil for an app user never seen.
    public static func find(appUserID: String, on connection: Connection) throws -> Account? {
        guard let row = try connection.queryOne("SELECT account_id FROM app_users WHERE app_user_id = ?", [appUserID]) else {
            return nil
        }
        return try find(id: try row.string("account_id"), on: connection)
    }

    /// The account of `appUserID`, creating an anonymous one for an app user seen for the
    /// first time. Returns whether it was created.
    public static func findOrCreate(appUserID: String, secrets: DomainSecrets, on connection: Connection, now: Date) throws -> (Account, created: Bool) {
        if let account = try find(appUserID: appUserID, on: connection) {
            // Last-seen is coarse (a minute) so repeat requests do not each write.
            try connection.execute(
                "UPDATE app_users SET last_seen_at = ? WHERE app_user_id = ? AND last_seen_at < ?",
                [Timestamp.milliseconds(now), appUserID, Timestamp.milliseconds(now.addingTimeInterval(-60))])
            return (account, false)
        }
        let account = try create(secrets: secrets, on: connection, now: now)
        try link(appUserID: appUserID, to: account.id, on: connection, now: now)
        return (account, true)
    }

    /// Points `appUserID` at `accountID` (an account switch moves the app user). The first
    /// account an app user gets stays its home account.
    public static func link(appUserID: String, to accountID: String, on connection: Connection, now: Date) throws {
        let nowMS = Timestamp.milliseconds(now)
        try connection.execute(
            """
            INSERT INTO app_users (app_user_id, account_id, home_account_id, created_at, last_seen_at) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (app_user_id) DO UPDATE SET account_id = excluded.account_id, last_seen_at = excluded.last_seen_at
            """,
            [appUserID, accountID, accountID, nowMS, nowMS])
    }

    /// The account an app user was first given (an account switch does not change it).
    public static func homeAccountID(appUserID: String, on connection: Connection) throws -> String? {
        try connection.queryOne("SELECT home_account_id FROM app_users WHERE app_user_id = ?", [appUserID])?.string("home_account_id")
    }
}
