import Crypto
import Foundation
import Storage

/// One-time tokens in links and sign-in flows, stored only as SHA-256 hashes: login links
/// (`login_url`), authorization codes of the app callback, email confirmations, password
/// resets and web sign-in links. A token works once, before it expires, for its purpose only.
public enum AuthTokenRepository {
    /// What a token is for, and how long it lives.
    public enum Purpose: String, Sendable {
        case login
        case authorizationCode = "authorization_code"
        case emailConfirmation = "email_confirmation"
        case passwordReset = "password_reset"
        /// The emailed link that signs a buyer in on the web (`/account/sign-in/link`).
        case webSignIn = "web_sign_in"
        /// The 6-digit code in the same mail, typed on the page the buyer is on (`SignInCodeRepository`).
        case webSignInCode = "web_sign_in_code"

        public var lifetime: TimeInterval {
            switch self {
            case .login, .webSignIn, .webSignInCode: 600
            case .authorizationCode: 120
            case .emailConfirmation: 3 * 86400
            case .passwordReset: 3600
            }
        }
    }

    /// A token's stored facts.
    public struct Token: Sendable, Equatable {
        public let purpose: Purpose
        public let accountID: String
        public let email: String?
        public let codeChallenge: String?
        public let expiresAt: Date
        public let usedAt: Date?
    }

    /// Why a token cannot be used (an outcome, not an error: CONVENTIONS.md keeps one error type per
    /// module, `DomainError`).
    public enum Rejection: Sendable, Equatable {
        case unknown, expired, used
    }

    /// What checking a token found: its value, or why it cannot be used.
    public enum Check<Value: Sendable>: Sendable {
        case valid(Value)
        case rejected(Rejection)

        /// The valid value transformed by `transform`; a rejection unchanged.
        public func map<Other: Sendable>(_ transform: (Value) -> Other) -> Check<Other> {
            switch self {
            case .valid(let value): .valid(transform(value))
            case .rejected(let rejection): .rejected(rejection)
            }
        }
    }

    /// Issues a token; the plaintext is returned once and never stored.
    public static func issue(
        _ purpose: Purpose, accountID: String, email: String? = nil, codeChallenge: String? = nil, on connection: Connection, now: Date
    ) throws -> String {
        let token = try OpaqueToken.generate()
        try connection.execute(
            """
            INSERT INTO auth_tokens (token_hash, purpose, account_id, email, code_challenge, expires_at, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """,
            [
                try hash(token), purpose.rawValue, accountID, email?.lowercased(), codeChallenge,
                Timestamp.milliseconds(now.addingTimeInterval(purpose.lifetime)), Timestamp.milliseconds(now)
            ])
        return token
    }

    /// Looks a token up without using it (a GET of a confirmation page must not consume it).
    public static func peek(_ token: String, purpose: Purpose, on connection: Connection, now: Date) throws -> Check<Token> {
        guard let stored = try lookup(token, purpose: purpose, on: connection) else { return .rejected(.unknown) }
        if stored.usedAt != nil { return .rejected(.used) }
        if stored.expiresAt <= now { return .rejected(.expired) }
        return .valid(stored)
    }

    /// A token's facts whatever its state (to offer a fresh link for an expired one); nil
    /// when it was never issued.
    public static func lookup(_ token: String, purpose: Purpose, on connection: Connection) throws -> Token? {
        guard token.utf8.count <= 128,
            let row = try connection.queryOne(
                "SELECT account_id, email, code_challenge, expires_at, used_at FROM auth_tokens WHERE token_hash = ? AND purpose = ?",
                [try hash(token), purpose.rawValue])
        else { return nil }
        return Token(
            purpose: purpose, accountID: try row.string("account_id"), email: try row.optionalString("email"),
            codeChallenge: try row.optionalString("code_challenge"), expiresAt: Timestamp.date(try row.int64("expires_at")),
            usedAt: Timestamp.date(try row.optionalInt64("used_at")))
    }

    /// Uses a token: valid only once (the update is conditional, so two concurrent uses
    /// cannot both succeed).
    public static func consume(_ token: String, purpose: Purpose, on connection: Connection, now: Date) throws -> Check<Token> {
        let peeked = try peek(token, purpose: purpose, on: connection, now: now)
        guard case .valid = peeked else { return peeked }
        let changed = try connection.run(
            "UPDATE auth_tokens SET used_at = ? WHERE token_hash = ? AND used_at IS NULL",
            [Timestamp.milliseconds(now), try hash(token)])
        return changed == 1 ? peeked : .rejected(.used)
    }

    static func hash(_ token: String) throws -> String {
        Hex.encode(try SHA256.hash(Array(token.utf8)))
    }
}
