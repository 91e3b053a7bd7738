import Foundation
import Storage

/// The console's cookie sessions (`tollgate_console`): the cookie holds `con_<id>.<secret>`; the
/// table keeps the SHA-256 of the secret. A session ends 30 minutes after its last use or 12
/// hours after sign-in, whichever comes first, or when signed out or the operator is removed.
public enum ConsoleSessionRepository {
    static let idPrefix = "con"
    static let table = CookieSessionTable(table: "console_sessions", prefix: idPrefix, ownerColumn: "operator_id")
    /// Idle limit.
    public static let idleLifetime: TimeInterval = 30 * 60
    /// Absolute limit.
    public static let absoluteLifetime: TimeInterval = 12 * 3600
    /// How old the last-seen time must be before a use writes it again.
    static let touchStep: TimeInterval = 60

    /// A live session and its operator.
    public struct Session: Sendable {
        public let id: String
        public let operatorID: String
        /// When it ends if not used again.
        public let expiresAt: Date
    }

    /// A new session: the cookie's value (never stored) and the session.
    public typealias Issued = IssuedCookieSession<Session>

    /// Signs `operatorID` in.
    public static func issue(operatorID: String, on connection: Connection, now: Date) throws -> Issued {
        let token = try table.draft(at: now)
        let nowMS = Timestamp.milliseconds(now)
        try connection.execute(
            "INSERT INTO console_sessions (id, operator_id, secret_hash, created_at, last_seen_at) VALUES (?, ?, ?, ?, ?)",
            [token.sessionID, operatorID, try token.secretHash, nowMS, nowMS])
        return Issued(
            cookieValue: token.text, session: Session(id: token.sessionID, operatorID: operatorID, expiresAt: now.addingTimeInterval(idleLifetime)))
    }

    /// The live session `cookieValue` names (its last use moved to `now`); nil when unknown, idle
    /// too long, too old, signed out, or its operator was removed or reset.
    public static func use(_ cookieValue: String, on connection: Connection, now: Date) throws -> Session? {
        guard
            case let (token, row)? = try table.row(
                cookieValue,
                select: """
                    SELECT s.operator_id, s.secret_hash, s.created_at, s.last_seen_at, s.revoked_at
                    FROM console_sessions s JOIN operators o ON o.id = s.operator_id
                    WHERE s.id = ? AND o.removed_at IS NULL AND o.enrolled_at IS NOT NULL
                    """, on: connection),
            try row.optionalInt64("revoked_at") == nil
        else { return nil }
        let created = Timestamp.date(try row.int64("created_at"))
        let lastSeen = Timestamp.date(try row.int64("last_seen_at"))
        let end = min(lastSeen.addingTimeInterval(idleLifetime), created.addingTimeInterval(absoluteLifetime))
        guard end > now else { return nil }
        if now.timeIntervalSince(lastSeen) >= touchStep {
            try connection.execute("UPDATE console_sessions SET last_seen_at = ? WHERE id = ?", [Timestamp.milliseconds(now), token.sessionID])
        }
        let expires = min(now.addingTimeInterval(idleLifetime), created.addingTimeInterval(absoluteLifetime))
        return Session(id: token.sessionID, operatorID: try row.string("operator_id"), expiresAt: expires)
    }

    /// Ends one session (sign-out).
    public static func revoke(sessionID: String, on connection: Connection, now: Date) throws {
        try table.revoke(sessionID: sessionID, on: connection, now: now)
    }

    /// Ends every session of an operator.
    public static func revokeAll(operatorID: String, on connection: Connection, now: Date) throws {
        try table.revokeAll(owner: operatorID, on: connection, now: now)
    }
}
