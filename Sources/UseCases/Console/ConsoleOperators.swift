import Crypto
import Domain
import Foundation
import Storage

/// The console's operators as people (`tollgate operator ...`, API.md "The operators' console"):
/// adding one mails an invitation (`/console/invite/{token}`, one use, 72 h) where the operator
/// sets a password (12 characters or more, scrypt) and enrols a TOTP authenticator (its secret
/// sealed at rest); a reset forgets both and invites again; removing ends every session. Every
/// change is audited; the actor must be an admin.
public struct ConsoleOperators: Sendable {
    let database: Database
    let mail: MailQueue
    let links: Links
    let key: [UInt8]
    let issuer: String

    /// The shortest password an operator may choose.
    public static let minimumPasswordLength = 12

    public init(database: Database, mail: MailQueue, links: Links, secrets: DomainSecrets, issuer: String) {
        self.database = database
        self.mail = mail
        self.links = links
        key = secrets.operatorTOTPKey
        self.issuer = issuer
    }

    /// A new invitation: the link (printed by the CLI when mail goes to a file or the log).
    public struct Invited: Sendable {
        public let operatorID: String
        public let email: String
        public let role: OperatorRole
        public let link: String
    }

    /// Adds `email` with `role` and mails the invitation.
    /// - Throws: `UseCaseError.forbidden` (not an admin), `.conflict` (already an operator), `.badRequest`.
    public func add(email: String, role: OperatorRole, by actor: AuditActor, now: Date) async throws -> Invited {
        try OperatorActions.require(.manageOperators, actor)
        let email = try Self.address(email)
        let invited = try await database.write { connection -> Invited in
            guard let added = try OperatorRepository.add(email: email, role: role, on: connection, now: now) else {
                throw UseCaseError.conflict("\(email) is an operator already; use 'operator reset' to invite them again.")
            }
            let invited = try invite(added, on: connection, now: now)
            try AuditLog.record(
                actor, action: "operator.add", target: added.id, details: "\(EmailMask.mask(email)) as \(role.rawValue)", on: connection, now: now)
            return invited
        }
        mail.queued()
        return invited
    }

    /// Forgets the operator's password and authenticator, ends their sessions and invites them again.
    /// - Throws: `UseCaseError.forbidden`, `.notFound`.
    public func reset(email: String, by actor: AuditActor, now: Date) async throws -> Invited {
        try OperatorActions.require(.manageOperators, actor)
        let invited = try await database.write { connection -> Invited in
            let found = try Self.require(email: email, on: connection)
            try OperatorRepository.unenrol(operatorID: found.id, on: connection, now: now)
            let invited = try invite(found, on: connection, now: now)
            try AuditLog.record(actor, action: "operator.reset", target: found.id, details: EmailMask.mask(found.email), on: connection, now: now)
            return invited
        }
        mail.queued()
        return invited
    }

    /// Changes an operator's role.
    /// - Throws: `UseCaseError.forbidden`, `.notFound`.
    public func setRole(email: String, role: OperatorRole, by actor: AuditActor, now: Date) async throws {
        try OperatorActions.require(.manageOperators, actor)
        try await database.write { connection in
            let found = try Self.require(email: email, on: connection)
            try OperatorRepository.setRole(role, operatorID: found.id, on: connection, now: now)
            try AuditLog.record(
                actor, action: "operator.role", target: found.id, details: "\(found.role.rawValue) → \(role.rawValue)", on: connection, now: now)
        }
    }

    /// Removes an operator: no more sign-in, every session ended.
    /// - Throws: `UseCaseError.forbidden`, `.notFound`.
    public func remove(email: String, by actor: AuditActor, now: Date) async throws {
        try OperatorActions.require(.manageOperators, actor)
        try await database.write { connection in
            let found = try Self.require(email: email, on: connection)
            try OperatorRepository.remove(operatorID: found.id, on: connection, now: now)
            try AuditLog.record(actor, action: "operator.remove", target: found.id, details: EmailMask.mask(found.email), on: connection, now: now)
        }
    }

    /// Every operator.
    /// - Throws: `UseCaseError.forbidden`.
    public func list(by actor: AuditActor) async throws -> [Operator] {
        try OperatorActions.require(.manageOperators, actor)
        return try await database.read { try OperatorRepository.all(on: $0) }
    }

    /// What the invitation page shows: whom it is for and the authenticator to enrol.
    public struct Invitation: Sendable {
        public let email: String
        /// The base32 secret (shown on this page only).
        public let secret: String
        /// The `otpauth://` URI, drawn as a QR code.
        public let provisioningURI: String
    }

    /// Why an invitation cannot be used.
    public enum InvitationRefusal: Sendable, Equatable {
        case unknown, used, expired
    }

    /// What an invitation link opens.
    public enum InvitationPage: Sendable {
        case open(Invitation)
        case refused(InvitationRefusal)
    }

    /// The invitation `token` opens, or why not.
    /// - Throws: `StorageError`, `CryptoError`.
    public func invitation(token: String, now: Date) async throws -> InvitationPage {
        try await database.read { connection in
            switch try check(token: token, on: connection, now: now) {
            case .refused(let refusal): return .refused(refusal)
            case .valid(let invitation, let found):
                let secret = try AESGCM.open(invitation.totpSealed, key: key, associatedData: Array(found.id.utf8))
                return .open(
                    Invitation(
                        email: found.email, secret: Base32.encode(secret),
                        provisioningURI: TOTP.provisioningURI(secret: secret, account: found.email, issuer: issuer)))
            }
        }
    }

    private enum Checked {
        case valid(OperatorInvitationRepository.Invitation, Operator)
        case refused(InvitationRefusal)
    }

    /// How an enrolment ended.
    public enum Enrolment: Sendable, Equatable {
        case enrolled(email: String)
        case refused(InvitationRefusal)
        /// The password is too short (nothing changed; the page asks again).
        case passwordTooShort
        /// The code is not the authenticator's current one (nothing changed).
        case wrongCode
    }

    /// Takes up the invitation: the password and the authenticator (proved by its current code).
    /// - Throws: `StorageError`, `CryptoError`.
    public func enrol(token: String, password: String, otp: String, now: Date) async throws -> Enrolment {
        guard password.count >= Self.minimumPasswordLength, password.utf8.count <= 1024 else { return .passwordTooShort }
        let checked = try await database.read { connection in try check(token: token, on: connection, now: now) }
        let invitation: OperatorInvitationRepository.Invitation, found: Operator
        switch checked {
        case .refused(let refusal): return .refused(refusal)
        case .valid(let valid, let person): (invitation, found) = (valid, person)
        }
        let secret = try AESGCM.open(invitation.totpSealed, key: key, associatedData: Array(found.id.utf8))
        guard let step = try TOTP.matchingStep(otp, secret: secret, now: now, after: nil) else { return .wrongCode }
        let hash = try await PasswordWork.hash(password)
        return try await database.write { connection -> Enrolment in
            guard try OperatorInvitationRepository.use(invitation, on: connection, now: now) else { return .refused(.used) }
            try OperatorRepository.enrol(
                operatorID: found.id, passwordHash: hash, totpSealed: invitation.totpSealed, usedStep: step, on: connection, now: now)
            try AuditLog.record(
                actor: found.email, action: "operator.enrol", target: found.id, details: "password and authenticator set", on: connection, now: now)
            return .enrolled(email: found.email)
        }
    }

    /// Demo mode's operator: an admin enrolled at once with a random password and TOTP secret,
    /// returned once for the terminal (never logged); nil when one exists already.
    public struct DemoCredentials: Sendable {
        public let email: String
        public let password: String
        public let secret: String
    }

    /// Creates demo mode's admin operator when the console has no operator yet.
    /// - Throws: `StorageError`, `CryptoError`.
    public func demoOperator(email: String, now: Date) async throws -> DemoCredentials? {
        guard try await database.read({ try OperatorRepository.all(on: $0) }).isEmpty else { return nil }
        let password = Base32.encode(try SecureRandom.bytes(count: 10)).lowercased()
        let secret = try SecureRandom.bytes(count: TOTP.secretByteCount)
        let hash = try await PasswordWork.hash(password)
        return try await database.write { connection -> DemoCredentials? in
            guard let added = try OperatorRepository.add(email: email, role: .admin, on: connection, now: now) else { return nil }
            let sealed = try AESGCM.seal(secret, key: key, associatedData: Array(added.id.utf8))
            try OperatorRepository.enrol(
                operatorID: added.id, passwordHash: hash, totpSealed: sealed, usedStep: TOTP.step(at: now) - 2, on: connection, now: now)
            try AuditLog.record(actor: "demo", action: "operator.add", target: added.id, details: "demo admin", on: connection, now: now)
            return DemoCredentials(email: email, password: password, secret: Base32.encode(secret))
        }
    }

    private func invite(_ found: Operator, on connection: Connection, now: Date) throws -> Invited {
        let secret = try SecureRandom.bytes(count: TOTP.secretByteCount)
        let sealed = try AESGCM.seal(secret, key: key, associatedData: Array(found.id.utf8))
        let token = try OperatorInvitationRepository.issue(operatorID: found.id, totpSealed: sealed, on: connection, now: now)
        let link = links.url("/console/invite/" + token)
        try mail.enqueue(
            key: "operator-invitation:\(try EntityID.make("m"))", template: "operator_invitation", to: found.email,
            parameters: ["invite_url": link, "expiry_hours": "72", "role": found.role.rawValue], on: connection)
        return Invited(operatorID: found.id, email: found.email, role: found.role, link: link)
    }

    private func check(token: String, on connection: Connection, now: Date) throws -> Checked {
        guard let invitation = try OperatorInvitationRepository.find(token: token, on: connection),
            let found = try OperatorRepository.find(id: invitation.operatorID, on: connection)
        else { return .refused(.unknown) }
        if invitation.usedAt != nil { return .refused(.used) }
        if invitation.expiresAt <= now { return .refused(.expired) }
        return .valid(invitation, found)
    }

    static func require(email: String, on connection: Connection) throws -> Operator {
        guard let found = try OperatorRepository.find(email: email, on: connection) else {
            throw UseCaseError.notFound("No operator \(EmailMask.mask(email.lowercased())).")
        }
        return found
    }

    static func address(_ email: String) throws -> String {
        let email = email.trimmingCharacters(in: .whitespaces).lowercased()
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), email.utf8.count <= 254,
            !email.contains(where: { $0.isWhitespace || $0.isNewline })
        else { throw UseCaseError.badRequest("'\(email)' is not an email address.") }
        return email
    }
}
