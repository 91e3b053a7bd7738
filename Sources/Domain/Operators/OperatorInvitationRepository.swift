import Crypto
import Foundation
import Storage

/// One-use invitations to the console (`/console/invite/{token}`, 72 h): the table keeps the
/// SHA-256 of the token and the TOTP secret the invitation page shows, sealed, so the page can be
/// opened again until the invitation is taken up.
public enum OperatorInvitationRepository {
    /// How long an invitation lasts.
    public static let lifetime: TimeInterval = 72 * 3600

    /// An invitation found by its token.
    public struct Invitation: Sendable {
        public let operatorID: String
        public let totpSealed: [UInt8]
        public let expiresAt: Date
        public let usedAt: Date?
        let tokenHash: String
    }

    /// A new invitation for `operatorID` (earlier unused ones stop working); its token, shown once.
    public static func issue(operatorID: String, totpSealed: [UInt8], on connection: Connection, now: Date) throws -> String {
        let token = try OpaqueToken.generate()
        let nowMS = Timestamp.milliseconds(now)
        try connection.execute(
            "UPDATE operator_invitations SET used_at = ? WHERE operator_id = ? AND used_at IS NULL", [nowMS, operatorID])
        try connection.execute(
            """
            INSERT INTO operator_invitations (token_hash, operator_id, totp_sealed, expires_at, created_at) VALUES (?, ?, ?, ?, ?)
            """, [try hash(token), operatorID, totpSealed, Timestamp.milliseconds(now.addingTimeInterval(lifetime)), nowMS])
        return token
    }

    /// The invitation `token` names, used or not; nil when unknown.
    public static func find(token: String, on connection: Connection) throws -> Invitation? {
        guard token.utf8.count <= 128, !token.isEmpty else { return nil }
        let tokenHash = try hash(token)
        return try connection.queryOne(
            "SELECT operator_id, totp_sealed, expires_at, used_at FROM operator_invitations WHERE token_hash = ?", [tokenHash]
        ).map { row in
            Invitation(
                operatorID: try row.string("operator_id"), totpSealed: try row.blob("totp_sealed"),
                expiresAt: Timestamp.date(try row.int64("expires_at")), usedAt: Timestamp.date(try row.optionalInt64("used_at")),
                tokenHash: tokenHash)
        }
    }

    /// Marks the invitation used; false when it was used already (a second tab, a replay).
    public static func use(_ invitation: Invitation, on connection: Connection, now: Date) throws -> Bool {
        try connection.queryOne(
            "UPDATE operator_invitations SET used_at = ? WHERE token_hash = ? AND used_at IS NULL RETURNING operator_id",
            [Timestamp.milliseconds(now), invitation.tokenHash]) != nil
    }

    static func hash(_ token: String) throws -> String { Hex.encode(try SHA256.hash(Array(token.utf8))) }
}
