import Crypto
import Foundation
import Storage

/// Access and refresh tokens: opaque 256-bit values handed to the app once, stored only as
/// SHA-256 hashes (a copy of the database cannot sign anyone in).
public enum SessionRepository {
    /// Tokens for the app; shown once.
    public struct Tokens: Sendable, Equatable {
        public let accessToken: String
        public let refreshToken: String
        public let expiresIn: Int
        public let accountID: String
    }

    public static let accessLifetime: TimeInterval = 3600
    public static let refreshLifetime: TimeInterval = 60 * 24 * 3600

    /// Issues a new session (a new refresh-token family) for `accountID` on `deviceID`.
    public static func issue(accountID: String, deviceID: String?, on connection: Connection, now: Date) throws -> Tokens {
        try insert(accountID: accountID, deviceID: deviceID, familyID: try EntityID.make("fam"), on: connection, now: now)
    }

    /// The account signed in with `accessToken`, when the token is valid at `now`.
    public static func authenticate(accessToken: String, on connection: Connection, now: Date) throws -> String? {
        guard let row = try connection.queryOne(
            """
            SELECT account_id FROM sessions WHERE access_token_hash = ? AND revoked_at IS NULL AND access_expires_at > ?
            """,
            [try hash(accessToken), Timestamp.milliseconds(now)])
        else { return nil }
        return try row.string("account_id")
    }

    /// Why a refresh token was refused.
    public enum RefreshRejection: Error, Sendable, Equatable {
        /// Unknown, expired or revoked.
        case invalid
        /// Already used once: a copy is in someone else's hands, so the whole family is revoked.
        case reused
    }

    /// Rotates a refresh token: the old pair stops working and a new pair of the same family is
    /// issued. Presenting a refresh token that was already rotated revokes the whole family.
    public static func refresh(_ refreshToken: String, on connection: Connection, now: Date) throws -> Result<Tokens, RefreshRejection> {
        guard refreshToken.utf8.count <= 128, let row = try connection.queryOne(
            """
            SELECT id, account_id, device_id, family_id, refresh_expires_at, rotated_at, revoked_at FROM sessions
            WHERE refresh_token_hash = ?
            """,
            [try hash(refreshToken)])
        else { return .failure(.invalid) }
        let familyID = try row.string("family_id")
        let nowMS = Timestamp.milliseconds(now)
        if try row.optionalInt64("rotated_at") != nil {
            try connection.execute(
                "UPDATE sessions SET revoked_at = ? WHERE family_id = ? AND revoked_at IS NULL", [nowMS, familyID])
            return .failure(.reused)
        }
        guard try row.optionalInt64("revoked_at") == nil, try row.int64("refresh_expires_at") > nowMS else {
            return .failure(.invalid)
        }
        try connection.execute(
            "UPDATE sessions SET rotated_at = ?, revoked_at = ? WHERE id = ?", [nowMS, nowMS, try row.string("id")])
        return .success(try insert(
            accountID: try row.string("account_id"), deviceID: try row.optionalString("device_id"), familyID: familyID,
            on: connection, now: now))
    }

    /// Signs an account out everywhere (a password change).
    public static func revokeAll(accountID: String, on connection: Connection, now: Date) throws {
        try connection.execute(
            "UPDATE sessions SET revoked_at = ? WHERE account_id = ? AND revoked_at IS NULL", [Timestamp.milliseconds(now), accountID])
    }

    /// Revokes every session of a device (signed out when the account passed `max_devices`).
    public static func revoke(accountID: String, deviceID: String, on connection: Connection, now: Date) throws {
        try connection.execute(
            "UPDATE sessions SET revoked_at = ? WHERE account_id = ? AND device_id = ? AND revoked_at IS NULL",
            [Timestamp.milliseconds(now), accountID, deviceID])
    }

    static func insert(accountID: String, deviceID: String?, familyID: String, on connection: Connection, now: Date) throws -> Tokens {
        let access = try OpaqueToken.generate()
        let refresh = try OpaqueToken.generate()
        try connection.execute(
            """
            INSERT INTO sessions (id, account_id, device_id, family_id, access_token_hash, refresh_token_hash,
                access_expires_at, refresh_expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                try EntityID.make("ses"), accountID, deviceID, familyID, try hash(access), try hash(refresh),
                Timestamp.milliseconds(now.addingTimeInterval(accessLifetime)),
                Timestamp.milliseconds(now.addingTimeInterval(refreshLifetime)), Timestamp.milliseconds(now),
            ])
        return Tokens(accessToken: access, refreshToken: refresh, expiresIn: Int(accessLifetime), accountID: accountID)
    }

    static func hash(_ token: String) throws -> String {
        Hex.encode(try SHA256.hash(Array(token.utf8)))
    }
}
