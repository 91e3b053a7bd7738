import Crypto
import Domain
import Foundation
import Logging
import Storage

/// Signing the app in: the one-time `login_url` becomes an authorization code for the app's
/// callback; codes (optionally PKCE S256) and refresh tokens (rotated; a reused one ends its
/// whole family) become tokens; an email and password sign in directly.
public struct SignIn: Sendable {
    /// The outcome of a password sign-in.
    public enum PasswordOutcome: Sendable {
        case signedIn(SessionRepository.Tokens)
        /// Unknown email, wrong password or no password: one answer (`PasswordCheck` mails what is due).
        case refused
    }

    let database: Database
    let authMail: AuthMail
    let mail: MailQueue
    let logger: Logger
    let passwords: PasswordCheck

    /// - Parameter hasher: the password hash work (scrypt; tests count its calls).
    public init(database: Database, authMail: AuthMail, mail: MailQueue, logger: Logger, hasher: any PasswordHashing = ScryptPasswords()) {
        self.database = database
        self.authMail = authMail
        self.mail = mail
        self.logger = logger
        self.passwords = PasswordCheck(database: database, authMail: authMail, mail: mail, hasher: hasher)
    }

    /// Signing the app in by mail (`POST /api/v1/auth/email`, `grant_type=email_code`).
    public var byMail: MailSignIn { MailSignIn(database: database, authMail: authMail, mail: mail) }

    /// Consumes a login link and issues an authorization code; nil when the link is unknown,
    /// expired or used. A link mailed to an address (`POST /api/v1/auth/email`) proves it: the
    /// account it opens confirms it, and the challenge sent with that request binds the code.
    /// expired or used. When the call that produced the link carried a `code_challenge` (a store
    /// claim), the code keeps that one whatever the link's query says, so `/auth/token` requires its
    /// verifier: a link handed to an app that sent a challenge is useless to anyone who copies it.
    /// - Throws: `StorageError`, `CryptoError`.
    public func authorizationCode(forLoginLink token: String, codeChallenge: String?, now: Date) async throws -> String? {
        try await database.write { connection -> String? in
            guard case .valid(let login) = try AuthTokenRepository.consume(token, purpose: .login, on: connection, now: now) else {
                return nil
            }
            if let email = login.email {
                guard try AddressProof.proved(email, accountID: login.accountID, on: connection, now: now) else { return nil }
            }
            return try AuthTokenRepository.issue(
                .authorizationCode, accountID: login.accountID, codeChallenge: login.codeChallenge ?? codeChallenge, on: connection, now: now)
        }
    }

    /// Exchanges an authorization code (and its PKCE verifier when it was issued with a challenge).
    /// - Throws: `UseCaseError` `invalid_grant`, `StorageError`.
    public func exchange(code: String, verifier: String?, now: Date) async throws -> SessionRepository.Tokens {
        try await database.write { connection -> SessionRepository.Tokens in
            switch try AuthTokenRepository.consume(code, purpose: .authorizationCode, on: connection, now: now) {
            case .rejected:
                throw Self.invalidGrant("The authorization code is unknown, expired or already used.")
            case .valid(let grant):
                if let challenge = grant.codeChallenge {
                    guard let verifier, let digest = try? SHA256.hash(Array(verifier.utf8)),
                        ConstantTime.equals(Array(Base64URL.encode(digest).utf8), Array(challenge.utf8))
                    else {
                        throw Self.invalidGrant("The code_verifier does not match the code_challenge.")
                    }
                }
                return try SessionRepository.issue(accountID: grant.accountID, deviceID: nil, on: connection, now: now)
            }
        }
    }

    /// Rotates a refresh token.
    /// - Throws: `UseCaseError` `invalid_grant` (a reused token also ends its family), `StorageError`.
    public func refresh(_ token: String, now: Date) async throws -> SessionRepository.Tokens {
        switch try await database.write({ try SessionRepository.refresh(token, on: $0, now: now) }) {
        case .rotated(let tokens):
            return tokens
        case .reused:
            logger.warning("refresh_token_reused")
            throw Self.invalidGrant("This refresh token was already used; every session of its sign-in was ended. Sign in again.")
        case .invalid:
            throw Self.invalidGrant("The refresh token is unknown, expired or revoked. Sign in again.")
        }
    }

    /// Signs in with an email and password.
    /// - Throws: `StorageError`, `CryptoError`.
    public func password(email: String, password: String, now: Date) async throws -> PasswordOutcome {
        switch try await passwords.verify(email: email, password: password, now: now) {
        case .refused: return .refused
        case .verified(let accountID):
            return .signedIn(try await database.write { try SessionRepository.issue(accountID: accountID, deviceID: nil, on: $0, now: now) })
        }
    }

    /// `400 invalid_grant` (OAuth's name for a bad code or token).
    static func invalidGrant(_ message: String) -> UseCaseError {
        UseCaseError(.badRequest, code: "invalid_grant", message)
    }
}
