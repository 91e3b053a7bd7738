import Crypto
import Domain
import Foundation
import Storage

/// Signing an operator in to the console with email, password and TOTP code (API.md "The
/// operators' console"): any wrong field gives the same answer; a code works once; 5 failures per
/// client address in 15 minutes answer 429, and per operator only once their password was right
/// (so guessing cannot lock an operator out). Sessions: 30 minutes idle, 12 hours at most.
public struct ConsoleSignIn: Sendable {
    let database: Database
    let key: [UInt8]
    let lockout: SignInLockout

    public init(database: Database, secrets: DomainSecrets, lockout: SignInLockout = SignInLockout()) {
        self.database = database
        key = secrets.operatorTOTPKey
        self.lockout = lockout
    }

    /// The longest a session lives (12 hours), however busy: the cookie's `Max-Age`.
    public static let absoluteLifetime = ConsoleSessionRepository.absoluteLifetime

    /// A signed-in operator, found from the session cookie.
    public struct Session: Sendable {
        public let sessionID: String
        public let operatorID: String
        public let email: String
        public let role: OperatorRole
        public let expiresAt: Date

        /// The audit actor this operator acts as from `clientAddress`.
        public func actor(clientAddress: String?) -> AuditActor { AuditActor(name: email, role: role, clientAddress: clientAddress) }
    }

    /// How a sign-in ended.
    public enum Outcome: Sendable {
        case signedIn(cookieValue: String, Session)
        /// Any wrong field: the same answer whichever it was.
        case wrong
    }

    /// A stored hash no password matches, verified for unknown emails so they take as long.
    private static let decoy = (try? PasswordHasher().hash(password: "decoy password for unknown operators")) ?? ""

    /// Signs in from `clientAddress`.
    /// - Throws: `UseCaseError.rateLimited` (429) while the client, or the operator after a right password, is locked out.
    public func signIn(email: String, password: String, otp: String, clientAddress: String, now: Date) async throws -> Outcome {
        let clientKey = "client:" + clientAddress
        if let wait = lockout.retryAfter(clientKey, now: now) { throw Self.locked(wait) }
        let email = email.trimmingCharacters(in: .whitespaces).lowercased()
        let found = try await database.read { try OperatorRepository.find(email: email, on: $0) }
        let passwordRight = await PasswordWork.verify(password, against: found?.passwordHash ?? Self.decoy) && found?.isEnrolled == true
        guard passwordRight, let found, let sealed = found.totpSealed else {
            lockout.record(clientKey, now: now)
            return .wrong
        }
        let operatorKey = "operator:" + found.id
        if let wait = lockout.retryAfter(operatorKey, now: now) { throw Self.locked(wait) }
        let secret = try AESGCM.open(sealed, key: key, associatedData: Array(found.id.utf8))
        let issued = try await database.write { connection -> ConsoleSessionRepository.Issued? in
            let current = try OperatorRepository.find(id: found.id, on: connection)
            guard let step = try TOTP.matchingStep(otp, secret: secret, now: now, after: current?.totpLastStep),
                try OperatorRepository.useStep(step, operatorID: found.id, on: connection)
            else { return nil }
            let issued = try ConsoleSessionRepository.issue(operatorID: found.id, on: connection, now: now)
            try AuditLog.record(
                actor: found.email, action: "operator.sign_in", target: found.id, details: "signed in to the console", clientAddress: clientAddress,
                on: connection, now: now)
            return issued
        }
        guard let issued else {
            lockout.record(clientKey, now: now)
            lockout.record(operatorKey, now: now)
            return .wrong
        }
        return .signedIn(
            cookieValue: issued.cookieValue,
            Session(sessionID: issued.session.id, operatorID: found.id, email: found.email, role: found.role, expiresAt: issued.session.expiresAt))
    }

    /// The live session `cookieValue` names (its idle time restarted), or nil.
    /// - Throws: `StorageError`.
    public func session(_ cookieValue: String?, now: Date) async throws -> Session? {
        guard let cookieValue else { return nil }
        return try await database.write { connection -> Session? in
            guard let session = try ConsoleSessionRepository.use(cookieValue, on: connection, now: now),
                let found = try OperatorRepository.find(id: session.operatorID, on: connection)
            else { return nil }
            return Session(sessionID: session.id, operatorID: found.id, email: found.email, role: found.role, expiresAt: session.expiresAt)
        }
    }

    /// Ends the session server-side.
    /// - Throws: `StorageError`.
    public func signOut(_ session: Session, now: Date) async throws {
        try await database.write { connection in
            try ConsoleSessionRepository.revoke(sessionID: session.sessionID, on: connection, now: now)
        }
    }

    static func locked(_ wait: Int) -> UseCaseError {
        UseCaseError(.rateLimited, code: "rate_limited", "Too many failed sign-ins; try again in \(wait) s.", retryAfterSeconds: wait)
    }
}
