import Domain
import Foundation
import Mail
import Storage
import UseCases

/// The console's use cases on a `UseCaseBench`, and an enrolled operator per role with the
/// secret of their authenticator, so a test computes codes as the operator's app does.
struct ConsoleBench {
    let bench: UseCaseBench
    let lockout = SignInLockout()

    init(_ bench: UseCaseBench = try! UseCaseBench()) { self.bench = bench }

    var operators: ConsoleOperators {
        ConsoleOperators(database: bench.database, mail: bench.mail, links: bench.links, secrets: bench.secrets, issuer: "Example console")
    }
    var signIn: ConsoleSignIn { ConsoleSignIn(database: bench.database, secrets: bench.secrets, lockout: lockout) }
    var queries: ConsoleQueries { try! ConsoleQueries(database: bench.database, secrets: bench.secrets) }
    var actions: ConsoleActions {
        ConsoleActions(
            database: bench.database, authMail: AuthMail(mail: bench.mail, links: bench.links, now: bench.nowFunction, secrets: bench.secrets),
            mail: bench.mail,
            secrets: bench.secrets, events: .disabled)
    }
    var operatorActions: OperatorActions { OperatorActions(database: bench.database, resend: bench.resend, codeMail: bench.codeMail) }

    static let cli = AuditActor(name: "cli:test", role: .admin)
    static let password = "correct horse battery"

    /// Adds `email` as `role` and takes up the invitation; the operator's TOTP secret.
    func enrolled(_ email: String, _ role: OperatorRole) async throws -> [UInt8] {
        let invited = try await operators.add(email: email, role: role, by: Self.cli, now: bench.now)
        let token = String(invited.link.split(separator: "/").last ?? "")
        guard case .open(let invitation) = try await operators.invitation(token: token, now: bench.now),
            let secret = Base32.decode(invitation.secret)
        else { throw Missing() }
        let code = try TOTP.code(secret: secret, step: TOTP.step(at: bench.now))
        guard try await operators.enrol(token: token, password: Self.password, otp: code, now: bench.now) == .enrolled(email: email) else {
            throw Missing()
        }
        // The enrolment used this step's code; sign-ins in tests use the next step's.
        bench.advance(30)
        return secret
    }

    /// The code the operator's app shows now.
    func code(_ secret: [UInt8]) throws -> String { try TOTP.code(secret: secret, step: TOTP.step(at: bench.now)) }

    /// A signed-in session of `email`.
    func session(_ email: String, _ secret: [UInt8]) async throws -> ConsoleSignIn.Session {
        guard
            case .signedIn(_, let session) = try await signIn.signIn(
                email: email, password: Self.password, otp: try code(secret), clientAddress: "203.0.113.9", now: bench.now)
        else { throw Missing() }
        return session
    }

    /// The audit entries, newest first.
    func audit() throws -> [AuditLog.Entry] { try bench.database.readSync { try AuditLog.recent(limit: 100, on: $0) } }

    /// How many messages the outbox holds for `template`.
    func mail(_ template: String) throws -> Int {
        try bench.database.readSync { connection in
            try connection.queryOne("SELECT COUNT(*) AS n FROM mail_outbox WHERE template = ?", [template])?.int("n") ?? 0
        }
    }
}
