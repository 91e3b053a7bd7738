import Foundation
import Storage

/// Accounts and the app users (`app_user_id`, the SDK's user) that point at them.
public enum AccountRepository {
    /// Creates an account; `email`, when given, is its first address *request* (unconfirmed: it
    /// makes the account reachable by nothing until a mailed link or code confirms it). Call
    /// inside a write transaction.
    public static func create(email: String? = nil, secrets: DomainSecrets, on connection: Connection, now: Date) throws -> Account {
        let id = try EntityID.make("acc")
        let nowMS = Timestamp.milliseconds(now)
        try connection.execute(
            """
            INSERT INTO accounts (id, obfuscated_id, email, email_verified, requested_email, email_requested_at, created_at, updated_at)
            VALUES (?, ?, NULL, 0, ?, ?, ?, ?)
            """,
            [id, try secrets.obfuscatedIDs.uuid(for: id), email?.lowercased(), email == nil ? nil : nowMS, nowMS, nowMS])
        return try require(id: id, on: connection)
    }

    public static func find(id: String, on connection: Connection) throws -> Account? {
        try connection.queryOne("SELECT \(Account.columns) FROM accounts WHERE id = ?", [id]).map(Account.init(row:))
    }

    /// The live account with this obfuscated id: a deleted account's id names no one any more, so
    /// a store purchase that carries it is treated as a new buyer's.
    public static func find(obfuscatedID: String, on connection: Connection) throws -> Account? {
        try connection.queryOne(
            "SELECT \(Account.columns) FROM accounts WHERE obfuscated_id = ? AND deleted_at IS NULL", [obfuscatedID.lowercased()]
        )
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

    /// The live account that most recently asked for `email` without having confirmed it yet
    /// (a request opens nothing: callers only mail that account its confirmation link).
    public static func find(requestedEmail email: String, on connection: Connection) throws -> Account? {
        try connection.queryOne(
            """
            SELECT \(Account.columns) FROM accounts WHERE requested_email = ? AND deleted_at IS NULL
            ORDER BY email_requested_at DESC, id DESC LIMIT 1
            """,
            [email.lowercased()]
        ).map(Account.init(row:))
    }

    /// Records an address request: the account keeps its confirmed address until `email` is
    /// confirmed. Asking for the address it has confirmed already ends any other request.
    public static func requestEmail(_ email: String, accountID: String, on connection: Connection, now: Date) throws {
        let email = email.lowercased()
        let nowMS = Timestamp.milliseconds(now)
        try connection.execute(
            """
            UPDATE accounts SET
                requested_email = CASE WHEN email = ? AND email_verified = 1 THEN NULL ELSE ? END,
                email_requested_at = CASE WHEN email = ? AND email_verified = 1 THEN NULL ELSE ? END,
                updated_at = ? WHERE id = ?
            """,
            [email, email, email, nowMS, nowMS, accountID])
    }

    /// Confirms `email` for the account: it becomes its address, and a request for it ends.
    /// Another account that confirmed it first keeps it, unless that account holds nothing but
    /// the address (`holdsNothingButAddress`): then the address moves.
    /// - Throws: `DomainError` with reason `emailConfirmedElsewhere` when another account keeps it.
    public static func confirmEmail(_ email: String, accountID: String, on connection: Connection, now: Date) throws {
        let email = email.lowercased()
        let nowMS = Timestamp.milliseconds(now)
        if let other = try find(confirmedEmail: email, on: connection), other.id != accountID {
            guard try holdsNothingButAddress(accountID: other.id, on: connection) else { throw DomainError(.emailConfirmedElsewhere) }
            try connection.execute(
                "UPDATE accounts SET email = NULL, email_verified = 0, updated_at = ? WHERE id = ?", [nowMS, other.id])
        }
        try connection.execute(
            """
            UPDATE accounts SET email = ?, email_verified = 1,
                requested_email = CASE WHEN requested_email = ? THEN NULL ELSE requested_email END,
                email_requested_at = CASE WHEN requested_email = ? THEN NULL ELSE email_requested_at END,
                updated_at = ? WHERE id = ?
            """,
            [email, email, email, nowMS, accountID])
    }

    /// Whether the account holds nothing but its address (made by a sign-in): no purchase, no app
    /// user, no password.
    public static func holdsNothingButAddress(accountID: String, on connection: Connection) throws -> Bool {
        let row = try connection.queryOne(
            """
            SELECT password_hash,
                (SELECT COUNT(*) FROM purchases WHERE account_id = ?) AS purchases,
                (SELECT COUNT(*) FROM app_users WHERE account_id = ? OR home_account_id = ?) AS app_users
            FROM accounts WHERE id = ?
            """,
            [accountID, accountID, accountID, accountID])
        guard let row else { return false }
        return try row.optionalString("password_hash") == nil && row.int64("purchases") == 0 && row.int64("app_users") == 0
    }

    /// Stores a password hash (scrypt, self-describing) somebody chose.
    public static func setPasswordHash(_ hash: String, accountID: String, on connection: Connection, now: Date) throws {
        try connection.execute(
            "UPDATE accounts SET password_hash = ?, password_generated = NULL, updated_at = ? WHERE id = ?",
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

    /// Every account that has `email`, confirmed or requested, confirmed first.
    public static func all(email: String, on connection: Connection) throws -> [Account] {
        try connection.query(
            """
            SELECT \(Account.columns) FROM accounts WHERE email = ? OR requested_email = ?
            ORDER BY email_verified DESC, created_at
            """,
            [email.lowercased(), email.lowercased()]
        ).map(Account.init(row:))
    }

    /// The app users that point at an account.
    public static func appUserIDs(accountID: String, on connection: Connection) throws -> [String] {
        try connection.query("SELECT app_user_id FROM app_users WHERE account_id = ? ORDER BY created_at", [accountID])
            .map { try $0.string("app_user_id") }
    }
}
