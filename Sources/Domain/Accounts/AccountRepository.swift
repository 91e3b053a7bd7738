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

    /// The live account with this obfuscated id: a deleted account's id names no one any more, so
    /// a store purchase that carries it is treated as a new buyer's.
    public static func find(obfuscatedID: String, on connection: Connection) throws -> Account? {
        try connection.queryOne(
            "SELECT \(Account.columns) FROM accounts WHERE obfuscated_id = ? AND deleted_at IS NULL", [obfuscatedID.lowercased()])
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

    /// Holds `appUserID` (existing or not) until the transaction ends, so that writes deciding
    /// which account it uses take turns on PostgreSQL (docs/POSTGRES-CONCURRENCY.md).
    /// - Throws: `StorageError`.
    public static func lock(appUserID: String, on connection: Connection) throws {
        try connection.lockKey("app_user:" + appUserID)
    }

    /// The account of `appUserID`, creating an anonymous one for an app user seen for the
    /// first time. Returns whether it was created.
    /// - Parameter joinedThrough: the purchase whose checkout or code brings a new app user
    ///   ("formed by"); nil for anything else.
    public static func findOrCreate(
        appUserID: String, joinedThrough: String? = nil, secrets: DomainSecrets, on connection: Connection, now: Date
    ) throws -> (Account, created: Bool) {
        if let account = try find(appUserID: appUserID, on: connection) {
            // Last-seen is coarse (a minute) so repeat requests do not each write.
            try connection.execute(
                "UPDATE app_users SET last_seen_at = ? WHERE app_user_id = ? AND last_seen_at < ?",
                [Timestamp.milliseconds(now), appUserID, Timestamp.milliseconds(now.addingTimeInterval(-60))])
            return (account, false)
        }
        let account = try create(secrets: secrets, on: connection, now: now)
        try link(appUserID: appUserID, to: account.id, joinedThrough: joinedThrough, on: connection, now: now)
        return (account, true)
    }

    /// Points `appUserID` at `accountID` (an account switch moves the app user). The first
    /// account an app user gets stays its home account.
    /// - Parameter joinedThrough: the purchase whose checkout or code the app user joins through
    ///   ("formed by"); nil when it joins any other way.
    public static func link(appUserID: String, to accountID: String, joinedThrough: String? = nil, on connection: Connection, now: Date) throws {
        let nowMS = Timestamp.milliseconds(now)
        try connection.execute(
            """
            INSERT INTO app_users (app_user_id, account_id, home_account_id, created_at, last_seen_at, joined_through_purchase_id)
            VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (app_user_id) DO UPDATE SET account_id = excluded.account_id, last_seen_at = excluded.last_seen_at,
                joined_through_purchase_id = excluded.joined_through_purchase_id
            """,
            [appUserID, accountID, accountID, nowMS, nowMS, joinedThrough])
    }

    /// The account an app user was first given (an account switch does not change it).
    public static func homeAccountID(appUserID: String, on connection: Connection) throws -> String? {
        try connection.queryOne("SELECT home_account_id FROM app_users WHERE app_user_id = ?", [appUserID])?.string("home_account_id")
    }

    /// The account that confirmed `email`, if any.
    public static func find(confirmedEmail email: String, on connection: Connection) throws -> Account? {
        try connection.queryOne(
            "SELECT \(Account.columns) FROM accounts WHERE email = ? AND email_verified = 1", [email.lowercased()]
        ).map(Account.init(row:))
    }

    /// The account with `email` confirmed, else the most recent one that set it unconfirmed.
    public static func find(email: String, on connection: Connection) throws -> Account? {
        try connection.queryOne(
            "SELECT \(Account.columns) FROM accounts WHERE email = ? ORDER BY email_verified DESC, updated_at DESC LIMIT 1",
            [email.lowercased()]
        ).map(Account.init(row:))
    }

    /// Sets a new, unconfirmed email.
    public static func setEmail(_ email: String, accountID: String, on connection: Connection, now: Date) throws {
        try connection.execute(
            "UPDATE accounts SET email = ?, email_verified = 0, updated_at = ? WHERE id = ?",
            [email.lowercased(), Timestamp.milliseconds(now), accountID])
    }

    /// Confirms `email` for the account (it becomes its address if it was not already).
    /// - Throws: `DomainError` with reason `emailConfirmedElsewhere` when another account confirmed it first.
    public static func confirmEmail(_ email: String, accountID: String, on connection: Connection, now: Date) throws {
        if let other = try find(confirmedEmail: email, on: connection), other.id != accountID {
            throw DomainError(.emailConfirmedElsewhere)
        }
        try connection.execute(
            "UPDATE accounts SET email = ?, email_verified = 1, updated_at = ? WHERE id = ?",
            [email.lowercased(), Timestamp.milliseconds(now), accountID])
    }

    /// Stores a password hash (scrypt, self-describing) somebody chose.
    public static func setPasswordHash(_ hash: String, accountID: String, on connection: Connection, now: Date) throws {
        try connection.execute(
            "UPDATE accounts SET password_hash = ?, password_generated = NULL, updated_at = ? WHERE id = ?",
            [hash, Timestamp.milliseconds(now), accountID])
    }

    /// Stores the hash of a generated password (seed 004's auto-created accounts): it does not
    /// count as a password set on the account ("formed by").
    public static func setGeneratedPasswordHash(_ hash: String, accountID: String, on connection: Connection, now: Date) throws {
        try connection.execute(
            "UPDATE accounts SET password_hash = ?, password_generated = 1, updated_at = ? WHERE id = ?",
            [hash, Timestamp.milliseconds(now), accountID])
    }

    /// The stored password hash of an account, if it has one.
    public static func passwordHash(accountID: String, on connection: Connection) throws -> String? {
        try connection.queryOne("SELECT password_hash FROM accounts WHERE id = ?", [accountID])?.optionalString("password_hash")
    }

    /// Gives the account a generated, readable, unique username (auto-created accounts).
    public static func assignUsername(accountID: String, on connection: Connection, now: Date) throws -> String {
        for _ in 0..<20 {
            let candidate = try UsernameGenerator.make()
            let changed = try connection.run(
                """
                UPDATE accounts SET username = ?, updated_at = ? WHERE id = ?
                AND NOT EXISTS (SELECT 1 FROM accounts WHERE username = ?)
                """,
                [candidate, Timestamp.milliseconds(now), accountID, candidate])
            if changed == 1 { return candidate }
        }
        throw DomainError(.conflict, "could not find a free username")
    }

    /// Every account that has `email`, confirmed first.
    public static func all(email: String, on connection: Connection) throws -> [Account] {
        try connection.query(
            "SELECT \(Account.columns) FROM accounts WHERE email = ? ORDER BY email_verified DESC, created_at", [email.lowercased()]
        ).map(Account.init(row:))
    }

    /// The app users that point at an account.
    public static func appUserIDs(accountID: String, on connection: Connection) throws -> [String] {
        try connection.query("SELECT app_user_id FROM app_users WHERE account_id = ? ORDER BY created_at", [accountID])
            .map { try $0.string("app_user_id") }
    }
}
