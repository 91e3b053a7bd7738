import Crypto
import Foundation
import Storage

/// The console's operators. Emails are kept lower-case; a removed operator keeps its row (the
/// audit log names it) but can no longer sign in, and `add` brings it back with a new invitation.
public enum OperatorRepository {
    /// The live operator with `email`, enrolled or not.
    public static func find(email: String, on connection: Connection) throws -> Operator? {
        try connection.queryOne(
            "SELECT \(Operator.columns) FROM operators WHERE email = ? AND removed_at IS NULL", [email.lowercased()]
        ).map(Operator.init(row:))
    }

    /// The live operator with `id`.
    public static func find(id: String, on connection: Connection) throws -> Operator? {
        try connection.queryOne("SELECT \(Operator.columns) FROM operators WHERE id = ? AND removed_at IS NULL", [id]).map(Operator.init(row:))
    }

    /// Every live operator, by email.
    public static func all(on connection: Connection) throws -> [Operator] {
        try connection.query("SELECT \(Operator.columns) FROM operators WHERE removed_at IS NULL ORDER BY email").map(Operator.init(row:))
    }

    /// Adds `email` with `role` (not enrolled), or brings a removed one back unenrolled; nil when a
    /// live operator has that email already.
    public static func add(email: String, role: OperatorRole, on connection: Connection, now: Date) throws -> Operator? {
        let email = email.lowercased()
        let nowMS = Timestamp.milliseconds(now)
        if let row = try connection.queryOne("SELECT id, removed_at FROM operators WHERE email = ?", [email]) {
            guard try row.optionalInt64("removed_at") != nil else { return nil }
            let id = try row.string("id")
            try connection.execute(
                """
                UPDATE operators SET role = ?, password_hash = NULL, totp_sealed = NULL, totp_last_step = NULL, enrolled_at = NULL,
                    removed_at = NULL, updated_at = ? WHERE id = ?
                """, [role.rawValue, nowMS, id])
            return try find(id: id, on: connection)
        }
        let id = try EntityID.make("op")
        try connection.execute(
            "INSERT INTO operators (id, email, role, created_at, updated_at) VALUES (?, ?, ?, ?, ?)", [id, email, role.rawValue, nowMS, nowMS])
        return try find(id: id, on: connection)
    }

    /// Changes the role.
    public static func setRole(_ role: OperatorRole, operatorID: String, on connection: Connection, now: Date) throws {
        try connection.execute(
            "UPDATE operators SET role = ?, updated_at = ? WHERE id = ?", [role.rawValue, Timestamp.milliseconds(now), operatorID])
    }

    /// Sets the password hash and the sealed TOTP secret: the operator is enrolled.
    public static func enrol(operatorID: String, passwordHash: String, totpSealed: [UInt8], usedStep: Int64, on connection: Connection, now: Date)
        throws
    {
        let nowMS = Timestamp.milliseconds(now)
        try connection.execute(
            """
            UPDATE operators SET password_hash = ?, totp_sealed = ?, totp_last_step = ?, enrolled_at = ?, updated_at = ? WHERE id = ?
            """, [passwordHash, totpSealed, usedStep, nowMS, nowMS, operatorID])
    }

    /// Forgets the password and authenticator (a reset: a new invitation follows) and ends the sessions.
    public static func unenrol(operatorID: String, on connection: Connection, now: Date) throws {
        try connection.execute(
            """
            UPDATE operators SET password_hash = NULL, totp_sealed = NULL, totp_last_step = NULL, enrolled_at = NULL, updated_at = ?
            WHERE id = ?
            """, [Timestamp.milliseconds(now), operatorID])
        try ConsoleSessionRepository.revokeAll(operatorID: operatorID, on: connection, now: now)
    }

    /// Removes the operator: no sign-in, sessions ended, invitations void.
    public static func remove(operatorID: String, on connection: Connection, now: Date) throws {
        let nowMS = Timestamp.milliseconds(now)
        try connection.execute(
            """
            UPDATE operators SET removed_at = ?, password_hash = NULL, totp_sealed = NULL, enrolled_at = NULL, updated_at = ? WHERE id = ?
            """, [nowMS, nowMS, operatorID])
        try connection.execute("UPDATE operator_invitations SET used_at = COALESCE(used_at, ?) WHERE operator_id = ?", [nowMS, operatorID])
        try ConsoleSessionRepository.revokeAll(operatorID: operatorID, on: connection, now: now)
    }

    /// Records that the code of `step` was used, when it is later than the last one used; false
    /// when a concurrent sign-in used it (or a later one) first.
    public static func useStep(_ step: Int64, operatorID: String, on connection: Connection) throws -> Bool {
        try connection.queryOne(
            """
            UPDATE operators SET totp_last_step = ? WHERE id = ? AND (totp_last_step IS NULL OR totp_last_step < ?) RETURNING id
            """, [step, operatorID, step]) != nil
    }
}
