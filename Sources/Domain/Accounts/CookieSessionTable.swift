import Crypto
import Foundation
import Storage

/// What the buyer's web sessions (`WebSessionRepository`) and the console's
/// (`ConsoleSessionRepository`) share: a table whose rows are cookie sessions, the cookie holding
/// `<prefix>_<id>.<secret>` and the row the SHA-256 of the secret (compared in constant time);
/// a session is drawn, found by its cookie, and ended one at a time or all of an owner's. Each
/// repository keeps its own lifetimes and what else its rows say.
struct CookieSessionTable: Sendable {
    /// The table (`web_sessions`, `console_sessions`).
    let table: String
    /// The id's prefix (`web`, `con`).
    let prefix: String
    /// The column naming whose session it is (`account_id`, `operator_id`).
    let ownerColumn: String

    /// A new session's id (time-ordered) and cookie token, made at `now`; nothing is stored.
    /// - Throws: `CryptoError` (random source).
    func draft(at now: Date) throws -> SessionToken {
        let random = try SecureRandom.bytes(count: EntityID.timeOrderedRandomBytes + OpaqueToken.byteCount)
        let id = EntityID.makeTimeOrdered(prefix, at: now, random: random.prefix(EntityID.timeOrderedRandomBytes))
        return SessionToken(sessionID: id, secretBytes: random.suffix(OpaqueToken.byteCount))
    }

    /// The row `select` reads for the session `cookieValue` names (its one parameter is the
    /// session id; it must read `secret_hash`), when the cookie's secret matches; nil otherwise.
    func row(_ cookieValue: String, select: String, on connection: Connection) throws -> (token: SessionToken, row: Row)? {
        guard let token = SessionToken(parsing: cookieValue, prefix: prefix),
            let row = try connection.queryOne(select, [token.sessionID]),
            try token.matches(row.optionalBlob("secret_hash"))
        else { return nil }
        return (token, row)
    }

    /// Ends one session (sign-out); the cookie no longer works.
    func revoke(sessionID: String, on connection: Connection, now: Date) throws {
        try connection.execute(
            "UPDATE \(table) SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", [Timestamp.milliseconds(now), sessionID])
    }

    /// Ends every session of `owner`, keeping the first end of those already ended.
    func revokeAll(owner: String, on connection: Connection, now: Date) throws {
        try connection.execute(
            "UPDATE \(table) SET revoked_at = COALESCE(revoked_at, ?) WHERE \(ownerColumn) = ?", [Timestamp.milliseconds(now), owner])
    }
}

/// A cookie session just issued: the cookie's value (shown once, never stored) and the session.
public struct IssuedCookieSession<Session: Sendable>: Sendable {
    public let cookieValue: String
    public let session: Session

    public init(cookieValue: String, session: Session) {
        self.cookieValue = cookieValue
        self.session = session
    }
}
