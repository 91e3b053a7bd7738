import Crypto
import Foundation
import Storage

/// Access and refresh tokens: `<session id>.<secret>` (see `SessionToken`), handed to the app
/// once; a session row keeps only the SHA-256 of each secret (a copy of the database cannot
/// sign anyone in). Session ids sort by creation time, so issuing one appends a row instead of
/// touching random index pages: repeat redemptions issue one per call.
///
/// A session ends on its own (`revoked_at`: rotated, or its family revoked) or with all the
/// others of its device or account: those bump a generation on the device or account row, and
/// a session counts only while it carries both current generations. So no index by account
/// or device is needed, whose random pages each new session would otherwise write.
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
    static let idPrefix = "ses"

    /// Issues a new session (a new refresh-token family) for `accountID` on `deviceID`.
    public static func issue(accountID: String, deviceID: String?, on connection: Connection, now: Date) throws -> Tokens {
        try insert(accountID: accountID, deviceID: deviceID, familyID: nil, on: connection, now: now)
    }

    /// The account signed in with `accessToken`, when the token is valid at `now`.
    public static func authenticate(accessToken: String, on connection: Connection, now: Date) throws -> String? {
        let nowMS = Timestamp.milliseconds(now)
        if let token = SessionToken(parsing: accessToken) {
            guard
                let row = try connection.queryOne(
                    """
                    SELECT s.account_id, s.access_secret_hash, s.access_expires_at, s.revoked_at, \(isCurrent) AS current
                    FROM sessions s WHERE s.id = ?
                    """,
                    [token.sessionID]),
                try token.matches(row.optionalBlob("access_secret_hash")),
                try row.optionalInt64("revoked_at") == nil, try row.bool("current"), try row.int64("access_expires_at") > nowMS
            else { return nil }
            return try row.string("account_id")
        }
        // A token issued before tokens named their session.
        guard accessToken.utf8.count <= 128,
            let row = try connection.queryOne(
                """
                SELECT s.account_id FROM sessions s
                WHERE s.legacy_access_hash = ? AND s.revoked_at IS NULL AND s.access_expires_at > ? AND \(isCurrent)
                """,
                [try legacyHash(accessToken), nowMS])
        else { return nil }
        return try row.string("account_id")
    }

    /// The account `accessToken` was issued for, whatever the session's state now (ended,
    /// expired), when its secret matches: lets a deletion repeated with the same token find the
    /// account it already deleted.
    public static func issuedAccount(accessToken: String, on connection: Connection) throws -> String? {
        if let token = SessionToken(parsing: accessToken) {
            guard let row = try connection.queryOne("SELECT account_id, access_secret_hash FROM sessions WHERE id = ?", [token.sessionID]),
                try token.matches(row.optionalBlob("access_secret_hash"))
            else { return nil }
            return try row.string("account_id")
        }
        guard accessToken.utf8.count <= 128 else { return nil }
        return try connection.queryOne("SELECT account_id FROM sessions WHERE legacy_access_hash = ?", [try legacyHash(accessToken)])?
            .string("account_id")
    }

    /// Whether the session `s` still carries its account's and device's generations.
    private static let isCurrent = """
        (s.account_generation = (SELECT session_generation FROM accounts WHERE id = s.account_id)
            AND (s.device_id IS NULL OR s.device_generation = COALESCE(
                (SELECT session_generation FROM devices WHERE account_id = s.account_id AND device_id = s.device_id), 0)))
        """

    /// What presenting a refresh token led to (an outcome callers switch on, not an error:
    /// CONVENTIONS.md keeps one error type per module).
    public enum RefreshOutcome: Sendable, Equatable {
        /// Accepted: the new pair of the same family.
        case rotated(Tokens)
        /// Unknown, expired or revoked.
        case invalid
        /// Already used once: a copy is in someone else's hands, so the whole family is revoked.
        case reused
    }

    /// Rotates a refresh token: the old pair stops working and a new pair of the same family is
    /// issued. Presenting a refresh token that was already rotated revokes the whole family.
    public static func refresh(_ refreshToken: String, on connection: Connection, now: Date) throws -> RefreshOutcome {
        guard let row = try sessionRow(refreshToken: refreshToken, on: connection) else { return .invalid }
        let accountID = try row.string("account_id")
        let familyID = try row.string("family_id")
        let nowMS = Timestamp.milliseconds(now)
        if try row.optionalInt64("rotated_at") != nil {
            try revokeFamily(familyID, on: connection, nowMS: nowMS)
            return .reused
        }
        guard try row.optionalInt64("revoked_at") == nil, try row.bool("current"), try row.int64("refresh_expires_at") > nowMS else {
            return .invalid
        }
        try connection.execute(
            "UPDATE sessions SET rotated_at = ?, revoked_at = ? WHERE id = ?", [nowMS, nowMS, try row.string("id")])
        return .rotated(
            try insert(
                accountID: accountID, deviceID: try row.optionalString("device_id"), familyID: familyID, on: connection, now: now))
    }

    /// Revokes the live sessions of family `familyID`. Only rows that continue the family can be
    /// live when one of its tokens is reused: a refresh revokes the row it rotates, and only the
    /// live row can be refreshed, so the family's first row (`family_id = id`, left out of the
    /// index) was revoked by the first refresh. The rest are found through
    /// `sessions_family_continued` (migration 0480), whose condition the statement repeats so
    /// that the index serves it. A family named otherwise (sessions from before migration 0250)
    /// has all its rows in that index.
    private static func revokeFamily(_ familyID: String, on connection: Connection, nowMS: Int64) throws {
        try connection.execute(
            "UPDATE sessions SET revoked_at = ? WHERE family_id = ? AND family_id <> id AND revoked_at IS NULL", [nowMS, familyID])
    }

    /// Signs an account out everywhere (a password change): its sessions end and the install
    /// secrets of its app users are unbound (they prove nothing until an install is signed in again).
    public static func revokeAll(accountID: String, on connection: Connection) throws {
        try connection.execute("UPDATE accounts SET session_generation = session_generation + 1 WHERE id = ?", [accountID])
        try AppUserSecretRepository.unbindAll(accountID: accountID, on: connection)
    }

    /// Ends every session of a device (signed out when the account passed `max_devices`) and
    /// unbinds the install secret kept for it.
    public static func revoke(accountID: String, deviceID: String, on connection: Connection, now: Date) throws {
        try AppUserSecretRepository.unbind(accountID: accountID, deviceID: deviceID, on: connection)
        let nowMS = Timestamp.milliseconds(now)
        // A device without a row (never seen by `DeviceRepository.touch`) gets one, signed out,
        // so that its sessions' generation 0 is no longer current.
        try connection.execute(
            """
            INSERT INTO devices (account_id, device_id, created_at, last_seen_at, signed_out_at, session_generation)
            VALUES (?, ?, ?, ?, ?, 1)
            ON CONFLICT (account_id, device_id) DO UPDATE SET session_generation = devices.session_generation + 1
            """,
            [accountID, deviceID, nowMS, nowMS, nowMS])
    }

    /// The session a refresh token belongs to, when its secret matches.
    private static func sessionRow(refreshToken: String, on connection: Connection) throws -> Row? {
        let columns = """
            s.id, s.account_id, s.device_id, s.family_id, s.refresh_secret_hash, s.refresh_expires_at, s.rotated_at, s.revoked_at,
            \(isCurrent) AS current
            """
        if let token = SessionToken(parsing: refreshToken) {
            guard let row = try connection.queryOne("SELECT \(columns) FROM sessions s WHERE s.id = ?", [token.sessionID]),
                try token.matches(row.optionalBlob("refresh_secret_hash"))
            else { return nil }
            return row
        }
        guard refreshToken.utf8.count <= 128 else { return nil }
        return try connection.queryOne(
            "SELECT \(columns) FROM sessions s WHERE s.legacy_refresh_hash = ?", [try legacyHash(refreshToken)])
    }

    /// A new session's id and secrets, drawn (one call to the random source) and hashed before
    /// the write transaction, so the single writer spends none of its time on them.
    public struct Draft: Sendable {
        /// The session's id: the part of its tokens before the dot.
        public let id: String
        let access: SessionToken
        let refresh: SessionToken
        let accessHash: [UInt8]
        let refreshHash: [UInt8]
    }

    /// Draws a session to be issued at `now`.
    /// - Throws: `CryptoError` when the system's random source fails.
    public static func draft(at now: Date) throws -> Draft {
        let random = try SecureRandom.bytes(count: EntityID.timeOrderedRandomBytes + 2 * OpaqueToken.byteCount)
        let secrets = random.dropFirst(EntityID.timeOrderedRandomBytes)
        let id = EntityID.makeTimeOrdered(idPrefix, at: now, random: random.prefix(EntityID.timeOrderedRandomBytes))
        let access = SessionToken(sessionID: id, secretBytes: secrets.prefix(OpaqueToken.byteCount))
        let refresh = SessionToken(sessionID: id, secretBytes: secrets.suffix(OpaqueToken.byteCount))
        return Draft(id: id, access: access, refresh: refresh, accessHash: try access.secretHash, refreshHash: try refresh.secretHash)
    }

    /// The account's and the device's session generations a new session carries: it counts only
    /// while both are still current.
    public struct Generations: Sendable, Equatable {
        public let account: Int64
        public let device: Int64

        public init(account: Int64, device: Int64) {
            self.account = account
            self.device = device
        }
    }

    /// Issues the drafted session (a new refresh-token family) for `accountID` on `deviceID`.
    /// - Parameter generations: the generations the caller read in its transaction, before
    ///   deciding to issue it (a repeat redemption reads them with the code's state): a sign-out
    ///   that commits after that read ends the session. Nil reads the current ones now.
    public static func issue(
        _ draft: Draft, accountID: String, deviceID: String?, generations: Generations? = nil, on connection: Connection, now: Date
    ) throws -> Tokens {
        try insert(draft, accountID: accountID, deviceID: deviceID, familyID: nil, generations: generations, on: connection, now: now)
    }

    private static let insertReadingGenerations = """
        INSERT INTO sessions (id, account_id, device_id, family_id, access_secret_hash, refresh_secret_hash,
            access_expires_at, refresh_expires_at, created_at, account_generation, device_generation)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, (SELECT session_generation FROM accounts WHERE id = ?),
            COALESCE((SELECT session_generation FROM devices WHERE account_id = ? AND device_id = ?), 0))
        """

    private static let insertWithGenerations = """
        INSERT INTO sessions (id, account_id, device_id, family_id, access_secret_hash, refresh_secret_hash,
            access_expires_at, refresh_expires_at, created_at, account_generation, device_generation)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    /// A new session; a new family unless `familyID` continues one (a refresh).
    static func insert(
        _ draft: Draft? = nil, accountID: String, deviceID: String?, familyID: String?, generations: Generations? = nil,
        on connection: Connection, now: Date
    ) throws -> Tokens {
        let session = try draft ?? Self.draft(at: now)
        var arguments: [any SQLBindable] = [
            session.id, accountID, deviceID, familyID ?? session.id, session.accessHash, session.refreshHash,
            Timestamp.milliseconds(now.addingTimeInterval(accessLifetime)),
            Timestamp.milliseconds(now.addingTimeInterval(refreshLifetime)), Timestamp.milliseconds(now)
        ]
        if let generations {
            arguments += [generations.account, generations.device]
            try connection.executeDeferred(insertWithGenerations, arguments)
        } else {
            arguments += [accountID, accountID, deviceID]
            try connection.executeDeferred(insertReadingGenerations, arguments)
        }
        return Tokens(
            accessToken: session.access.text, refreshToken: session.refresh.text, expiresIn: Int(accessLifetime), accountID: accountID)
    }

    /// How tokens issued before migration 0250 were stored.
    private static func legacyHash(_ token: String) throws -> String {
        Hex.encode(try SHA256.hash(Array(token.utf8)))
    }
}
