import Foundation
import Storage

/// The buyer's cookie sessions on Tollgate's own pages (`tollgate_session`): the cookie holds
/// `web_<id>.<secret>`; the table keeps the SHA-256 of the secret, compared in constant time.
/// A session lives 30 days from its last use (sliding, moved forward at most once an hour so a
/// busy page does not write on every view) and ends when the account's session generation
/// moves (a password change, a deletion) or when it is signed out.
public enum WebSessionRepository {
    static let idPrefix = "web"
    static let table = CookieSessionTable(table: "web_sessions", prefix: idPrefix, ownerColumn: "account_id")
    /// How long a session lives after its last use.
    public static let lifetime: TimeInterval = 30 * 86400
    /// How old the last extension must be before a use moves the expiry again.
    public static let extensionStep: TimeInterval = 3600

    /// A session found from its cookie.
    public struct Session: Sendable, Equatable {
        public let id: String
        public let accountID: String
        public let expiresAt: Date
        /// Whether this use moved the expiry (the cookie's lifetime should be sent again).
        public let extended: Bool
    }

    /// A new session: the cookie's value (shown once, never stored) and its row's facts.
    public typealias Issued = IssuedCookieSession<Session>

    /// Signs `accountID` in on the web.
    /// - Throws: `CryptoError` (random source), `StorageError`.
    public static func issue(accountID: String, on connection: Connection, now: Date) throws -> Issued {
        let token = try table.draft(at: now)
        let expires = now.addingTimeInterval(lifetime)
        let nowMS = Timestamp.milliseconds(now)
        try connection.execute(
            """
            INSERT INTO web_sessions (id, account_id, secret_hash, account_generation, created_at, last_seen_at, expires_at)
            VALUES (?, ?, ?, (SELECT session_generation FROM accounts WHERE id = ?), ?, ?, ?)
            """,
            [token.sessionID, accountID, try token.secretHash, accountID, nowMS, nowMS, Timestamp.milliseconds(expires)])
        return Issued(cookieValue: token.text, session: Session(id: token.sessionID, accountID: accountID, expiresAt: expires, extended: true))
    }

    /// The live session `cookieValue` names, without changing anything; nil when it is unknown,
    /// expired, signed out, or its account's sessions were ended since.
    public static func find(_ cookieValue: String, on connection: Connection, now: Date) throws -> Session? {
        guard
            case let (token, row)? = try table.row(
                cookieValue,
                select: """
                    SELECT w.account_id, w.secret_hash, w.expires_at, w.revoked_at,
                        w.account_generation = a.session_generation AND a.deleted_at IS NULL AS current
                    FROM web_sessions w JOIN accounts a ON a.id = w.account_id WHERE w.id = ?
                    """, on: connection),
            try row.optionalInt64("revoked_at") == nil, try row.bool("current")
        else { return nil }
        let expires = Timestamp.date(try row.int64("expires_at"))
        guard expires > now else { return nil }
        return Session(id: token.sessionID, accountID: try row.string("account_id"), expiresAt: expires, extended: false)
    }

    /// Like `find`, and slides the expiry forward when the last extension is over an hour old.
    public static func use(_ cookieValue: String, on connection: Connection, now: Date) throws -> Session? {
        guard let found = try find(cookieValue, on: connection, now: now) else { return nil }
        let slid = now.addingTimeInterval(lifetime)
        guard slid.timeIntervalSince(found.expiresAt) >= extensionStep else { return found }
        try connection.execute(
            "UPDATE web_sessions SET expires_at = ?, last_seen_at = ? WHERE id = ?",
            [Timestamp.milliseconds(slid), Timestamp.milliseconds(now), found.id])
        return Session(id: found.id, accountID: found.accountID, expiresAt: slid, extended: true)
    }

    /// Signs the session out (sign-out); the cookie no longer works.
    public static func revoke(sessionID: String, on connection: Connection, now: Date) throws {
        try table.revoke(sessionID: sessionID, on: connection, now: now)
    }

    /// Ends every web session of an account (its deletion). The rows keep only hashes; they let a
    /// repeated deletion with the same cookie find the account it deleted, and retention removes
    /// them once expired.
    public static func revokeAll(accountID: String, on connection: Connection, now: Date) throws {
        try table.revokeAll(owner: accountID, on: connection, now: now)
    }

    /// The account `cookieValue` was issued for, whatever the session's state now, when its secret
    /// matches.
    public static func issuedAccount(_ cookieValue: String, on connection: Connection) throws -> String? {
        try table.row(cookieValue, select: "SELECT account_id, secret_hash FROM web_sessions WHERE id = ?", on: connection)?.row.string("account_id")
    }
}
