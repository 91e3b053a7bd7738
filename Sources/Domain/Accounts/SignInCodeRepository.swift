import Crypto
import Foundation
import Storage

/// The 6-digit code a sign-in mail carries beside its link, for a buyer inside an app's web view
/// whose mail app opens links in another browser: typed on the page the buyer is on, it works
/// once, for 10 minutes, and 5 wrong tries end it (a new mail is needed). Stored in `auth_tokens`
/// (purpose `web_sign_in_code`) as an HMAC keyed by `DomainSecrets.signInCodeKey` over the
/// address, the code and its issue time, never in plaintext; a newer mail ends older codes, and
/// an address takes at most `maxWrongPerDay` wrong tries a day over all its codes.
public enum SignInCodeRepository {
    /// Wrong tries a code survives.
    public static let maxAttempts = 5
    /// Digits in a code.
    public static let digits = 6
    /// Wrong tries an address survives in a day, over all its codes: past them no code is taken
    /// for it until the day's oldest wrong try is a day old.
    public static let maxWrongPerDay = 10

    /// What a typed code did.
    public enum Check: Sendable, Equatable {
        /// Right: the code is used up; the session is the account's.
        case accepted(accountID: String)
        /// Wrong; `remaining` tries are left on this code.
        case wrong(remaining: Int)
        /// No live code for the address: never sent, expired, used, or out of tries.
        case noLiveCode
    }

    /// Issues a code for `email` (signing into `accountID`), ending the address's older codes.
    /// Returns the code, to be mailed; it is never stored.
    /// - Throws: `StorageError`, `CryptoError`.
    public static func issue(accountID: String, email: String, key: [UInt8], on connection: Connection, now: Date) throws -> String {
        try issue(accountID: accountID, email: email, key: key, keyID: nil, on: connection, now: now)
    }

    /// `issue` under the current key of `secrets`, its id stored beside the code's hash.
    /// - Throws: `StorageError`, `CryptoError`.
    public static func issue(accountID: String, email: String, secrets: DomainSecrets, on connection: Connection, now: Date) throws -> String {
        try issue(accountID: accountID, email: email, key: secrets.signInCodeKey, keyID: secrets.keyID, on: connection, now: now)
    }

    static func issue(accountID: String, email: String, key: [UInt8], keyID: String?, on connection: Connection, now: Date) throws -> String {
        let email = email.lowercased()
        let nowMS = Timestamp.milliseconds(now)
        try connection.execute(
            "UPDATE auth_tokens SET used_at = ? WHERE purpose = ? AND email = ? AND used_at IS NULL",
            [nowMS, AuthTokenRepository.Purpose.webSignInCode.rawValue, email])
        let code = try generate()
        try connection.execute(
            """
            INSERT INTO auth_tokens (token_hash, purpose, account_id, email, expires_at, created_at, attempts, key_id)
            VALUES (?, ?, ?, ?, ?, ?, 0, ?)
            """,
            [
                try hash(code, email: email, issuedMS: nowMS, key: key), AuthTokenRepository.Purpose.webSignInCode.rawValue, accountID, email,
                Timestamp.milliseconds(now.addingTimeInterval(AuthTokenRepository.Purpose.webSignInCode.lifetime)), nowMS, keyID
            ])
        return code
    }

    /// Checks a typed code against the address's newest live code: right uses it up; wrong
    /// counts a try (the fifth ends it). Spaces and hyphens in `typed` are ignored.
    /// - Throws: `StorageError`, `CryptoError`.
    public static func check(email: String, typed: String, key: [UInt8], on connection: Connection, now: Date) throws -> Check {
        try check(email: email, typed: typed, keys: { _ in [key] }, on: connection, now: now)
    }

    /// `check` under the listed key whose id is stored beside the code (any listed key for a code
    /// from before key ids): a code mailed just before a rotation still works for its 10 minutes.
    /// Codes are not re-keyed: they live 10 minutes.
    /// - Throws: `StorageError`, `CryptoError`.
    public static func check(email: String, typed: String, secrets: DomainSecrets, on connection: Connection, now: Date) throws -> Check {
        try check(
            email: email, typed: typed,
            keys: { keyID in
                guard let keyID else { return secrets.all.map(\.signInCodeKey) }
                return secrets.key(id: keyID).map { [$0.signInCodeKey] } ?? []
            }, on: connection, now: now)
    }

    static func check(email: String, typed: String, keys: (String?) -> [[UInt8]], on connection: Connection, now: Date) throws -> Check {
        let email = email.lowercased()
        let purpose = AuthTokenRepository.Purpose.webSignInCode.rawValue
        guard
            let row = try connection.queryOne(
                """
                SELECT token_hash, account_id, expires_at, created_at, attempts, key_id FROM auth_tokens
                WHERE purpose = ? AND email = ? AND used_at IS NULL ORDER BY created_at DESC LIMIT 1
                """,
                [purpose, email])
        else { return .noLiveCode }
        let stored = try row.string("token_hash")
        let attempts = Int(try row.int64("attempts"))
        guard Timestamp.date(try row.int64("expires_at")) > now, attempts < maxAttempts else { return .noLiveCode }
        guard try wrongToday(email: email, on: connection, now: now) < maxWrongPerDay else { return .noLiveCode }
        let code = typed.filter { $0 != " " && $0 != "-" }
        let issuedMS = try row.int64("created_at")
        let keyID = row["key_id"] == .null ? nil : try row.string("key_id")
        let candidates = try keys(keyID).map { try hash(code, email: email, issuedMS: issuedMS, key: $0) }
        if code.count == digits, code.allSatisfy(\.isASCII), code.allSatisfy(\.isNumber),
            candidates.reduce(false, { ConstantTime.equals(Array($1.utf8), Array(stored.utf8)) || $0 })
        {
            let changed = try connection.run(
                "UPDATE auth_tokens SET used_at = ? WHERE token_hash = ? AND used_at IS NULL", [Timestamp.milliseconds(now), stored])
            return changed == 1 ? .accepted(accountID: try row.string("account_id")) : .noLiveCode
        }
        let tried = attempts + 1
        let endedAt: Int64? = tried >= maxAttempts ? Timestamp.milliseconds(now) : nil
        try connection.execute("UPDATE auth_tokens SET attempts = ?, used_at = ? WHERE token_hash = ?", [tried, endedAt, stored])
        return tried >= maxAttempts ? .noLiveCode : .wrong(remaining: maxAttempts - tried)
    }

    /// Wrong tries at the address's codes issued in the last 24 hours.
    static func wrongToday(email: String, on connection: Connection, now: Date) throws -> Int {
        let row = try connection.queryOne(
            "SELECT COALESCE(SUM(attempts), 0) AS wrong FROM auth_tokens WHERE purpose = ? AND email = ? AND created_at > ?",
            [AuthTokenRepository.Purpose.webSignInCode.rawValue, email, Timestamp.milliseconds(now.addingTimeInterval(-86400))])
        return Int(try row?.int64("wrong") ?? 0)
    }

    /// Six uniformly random digits (rejection sampling: no digit is likelier than another).
    static func generate() throws -> String {
        while true {
            let bytes = try SecureRandom.bytes(count: 4)
            let value = bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            // 4_294_000_000 is the largest multiple of 1_000_000 not above UInt32.max.
            guard value < 4_294_000_000 else { continue }
            let text = String(value % 1_000_000)
            return String(repeating: "0", count: digits - text.count) + text
        }
    }

    /// The stored form: HMAC-SHA256 over the address, the code and the issue time, in hex.
    static func hash(_ code: String, email: String, issuedMS: Int64, key: [UInt8]) throws -> String {
        Hex.encode(try HMACSHA256.authenticationCode(for: Array("sign-in-code\n\(email)\n\(issuedMS)\n\(code)".utf8), key: key))
    }
}
