import Domain
import Foundation
import Storage
import Testing
import UseCases

/// Operators as people, without HTTP: invitations (one use, 72 h, mailed through the outbox),
/// enrolment (password length, the authenticator's code), sign-in (one answer for any wrong
/// field, a code once, lockouts), sessions (idle and absolute limits, sign-out).
@Suite("Console operators and sign-in")
struct ConsoleOperatorsTests {
    @Test("Adding an operator mails an invitation; it opens with the secret and enrols once, with the app's current code and a long password")
    func invitation() async throws {
        let console = ConsoleBench()
        let invited = try await console.operators.add(email: "Ann@Example.com", role: .support, by: ConsoleBench.cli, now: console.bench.now)
        #expect(invited.email == "ann@example.com" && invited.link.hasPrefix("https://pay.example.test/console/invite/"))
        #expect(try console.mail("operator_invitation") == 1)
        let token = String(invited.link.split(separator: "/").last ?? "")
        guard case .open(let page) = try await console.operators.invitation(token: token, now: console.bench.now) else { throw Missing() }
        let secret = try require(Base32.decode(page.secret))
        #expect(page.provisioningURI.contains("secret=" + page.secret))
        let now = console.bench.now
        let code = try TOTP.code(secret: secret, step: TOTP.step(at: now))
        #expect(try await console.operators.enrol(token: token, password: "short", otp: code, now: now) == .passwordTooShort)
        #expect(try await console.operators.enrol(token: token, password: ConsoleBench.password, otp: "000000", now: now) == .wrongCode)
        #expect(
            try await console.operators.enrol(token: token, password: ConsoleBench.password, otp: code, now: now)
                == .enrolled(email: "ann@example.com"))
        #expect(try await console.operators.enrol(token: token, password: ConsoleBench.password, otp: code, now: now) == .refused(.used))
        guard case .refused(.used) = try await console.operators.invitation(token: token, now: now) else { throw Missing() }
        // The secret is sealed at rest: the database alone holds neither it nor its base32 form.
        let stored = try console.bench.dump("operators").joined() + console.bench.dump("operator_invitations").joined()
        #expect(!stored.contains(page.secret) && !stored.contains(String(decoding: secret, as: UTF8.self)))
        #expect(try console.audit().map(\.action).contains("operator.add"))
    }

    @Test("An invitation expires after 72 hours; an unknown token is refused; adding a live operator twice is a conflict")
    func expiry() async throws {
        let console = ConsoleBench()
        let invited = try await console.operators.add(email: "bob@example.com", role: .viewer, by: ConsoleBench.cli, now: console.bench.now)
        let token = String(invited.link.split(separator: "/").last ?? "")
        console.bench.advance(72 * 3600 + 1)
        guard case .refused(.expired) = try await console.operators.invitation(token: token, now: console.bench.now) else { throw Missing() }
        #expect(
            try await console.operators.enrol(token: token, password: ConsoleBench.password, otp: "123456", now: console.bench.now)
                == .refused(.expired))
        guard case .refused(.unknown) = try await console.operators.invitation(token: "nope", now: console.bench.now) else { throw Missing() }
        await #expect(throws: UseCaseError.self) {
            _ = try await console.operators.add(email: "bob@example.com", role: .admin, by: ConsoleBench.cli, now: console.bench.now)
        }
    }

    @Test("Only an admin manages operators: a support person's add changes nothing")
    func onlyAdmins() async throws {
        let console = ConsoleBench()
        let error = await #expect(throws: UseCaseError.self) {
            _ = try await console.operators.add(
                email: "eve@example.com", role: .admin, by: AuditActor(name: "sue@example.com", role: .support), now: console.bench.now)
        }
        #expect(error?.kind == .forbidden)
        #expect(try console.mail("operator_invitation") == 0)
        #expect(try console.bench.dump("operators").isEmpty)
    }

    @Test("Sign-in: any wrong field gives the same answer; the right three sign in; the same code never signs in twice")
    func signIn() async throws {
        let console = ConsoleBench()
        let secret = try await console.enrolled("ann@example.com", .support)
        let now = console.bench.now
        let code = try console.code(secret)
        for (email, password, otp) in [
            ("nobody@example.com", ConsoleBench.password, code), ("ann@example.com", "wrong password!", code),
            ("ann@example.com", ConsoleBench.password, "000000")
        ] {
            guard
                case .wrong = try await console.signIn.signIn(
                    email: email, password: password, otp: otp, clientAddress: "198.51.100.\(otp.count)", now: now)
            else {
                Issue.record("\(email) signed in"); continue
            }
        }
        guard
            case .signedIn(let cookie, let session) = try await console.signIn.signIn(
                email: "ANN@example.com", password: ConsoleBench.password, otp: code, clientAddress: "198.51.100.1", now: now)
        else { throw Missing() }
        #expect(session.role == .support && cookie.hasPrefix("con_"))
        guard
            case .wrong = try await console.signIn.signIn(
                email: "ann@example.com", password: ConsoleBench.password, otp: code, clientAddress: "198.51.100.2", now: now)
        else { throw Missing() }
        // The cookie's secret is stored only hashed.
        #expect(!(try console.bench.dump("console_sessions").joined()).contains(String(cookie.split(separator: ".")[1])))
    }

    @Test("5 failures from one client address lock it out for 15 minutes (429); guessing passwords never locks the operator out")
    func clientLockout() async throws {
        let console = ConsoleBench()
        let secret = try await console.enrolled("ann@example.com", .admin)
        for _ in 0..<5 {
            _ = try await console.signIn.signIn(
                email: "ann@example.com", password: "guess guess guess", otp: "111111", clientAddress: "192.0.2.66", now: console.bench.now)
        }
        let locked = await #expect(throws: UseCaseError.self) {
            _ = try await console.signIn.signIn(
                email: "ann@example.com", password: ConsoleBench.password, otp: try console.code(secret), clientAddress: "192.0.2.66",
                now: console.bench.now)
        }
        #expect(locked?.kind == .rateLimited && (locked?.retryAfterSeconds ?? 0) > 0)
        // The operator, from their own address, is not locked out by someone else's guesses.
        _ = try await console.session("ann@example.com", secret)
        console.bench.advance(15 * 60)
        guard
            case .wrong = try await console.signIn.signIn(
                email: "ann@example.com", password: "guess", otp: "1", clientAddress: "192.0.2.66", now: console.bench.now)
        else { throw Missing() }
    }

    @Test("After a right password, 5 wrong codes lock the operator out from every address")
    func operatorLockout() async throws {
        let console = ConsoleBench()
        let secret = try await console.enrolled("ann@example.com", .admin)
        for index in 0..<5 {
            guard
                case .wrong = try await console.signIn.signIn(
                    email: "ann@example.com", password: ConsoleBench.password, otp: "000000", clientAddress: "192.0.2.\(index)",
                    now: console.bench.now)
            else { throw Missing() }
        }
        let locked = await #expect(throws: UseCaseError.self) {
            _ = try await console.signIn.signIn(
                email: "ann@example.com", password: ConsoleBench.password, otp: try console.code(secret), clientAddress: "192.0.2.99",
                now: console.bench.now)
        }
        #expect(locked?.kind == .rateLimited)
    }

    @Test("A session ends after 30 idle minutes, after 12 hours whatever the use, and at sign-out, on the server")
    func sessions() async throws {
        let console = ConsoleBench()
        let secret = try await console.enrolled("ann@example.com", .viewer)
        guard
            case .signedIn(let cookie, let session) = try await console.signIn.signIn(
                email: "ann@example.com", password: ConsoleBench.password, otp: try console.code(secret), clientAddress: "192.0.2.1",
                now: console.bench.now)
        else { throw Missing() }
        console.bench.advance(29 * 60)
        #expect(try await console.signIn.session(cookie, now: console.bench.now) != nil)
        for _ in 0..<24 {
            console.bench.advance(29 * 60)
            _ = try await console.signIn.session(cookie, now: console.bench.now)
        }
        #expect(try await console.signIn.session(cookie, now: console.bench.now) == nil, "over 12 hours")
        console.bench.advance(30)
        guard
            case .signedIn(let second, _) = try await console.signIn.signIn(
                email: "ann@example.com", password: ConsoleBench.password, otp: try console.code(secret), clientAddress: "192.0.2.1",
                now: console.bench.now)
        else { throw Missing() }
        console.bench.advance(31 * 60)
        #expect(try await console.signIn.session(second, now: console.bench.now) == nil, "idle")
        console.bench.advance(30)
        let third = try await console.session("ann@example.com", secret)
        try await console.signIn.signOut(third, now: console.bench.now)
        _ = session
        #expect(try console.bench.database.readSync { try $0.query("SELECT id FROM console_sessions WHERE revoked_at IS NOT NULL") }.count == 1)
    }

    @Test("Reset forgets the password and authenticator and ends sessions; remove stops sign-in; role changes the role")
    func manage() async throws {
        let console = ConsoleBench()
        let secret = try await console.enrolled("ann@example.com", .viewer)
        try await console.operators.setRole(email: "ann@example.com", role: .support, by: ConsoleBench.cli, now: console.bench.now)
        #expect(try await console.session("ann@example.com", secret).role == .support)
        console.bench.advance(30)
        _ = try await console.operators.reset(email: "ann@example.com", by: ConsoleBench.cli, now: console.bench.now)
        console.bench.advance(30)
        guard
            case .wrong = try await console.signIn.signIn(
                email: "ann@example.com", password: ConsoleBench.password, otp: try console.code(secret), clientAddress: "192.0.2.1",
                now: console.bench.now)
        else { throw Missing() }
        try await console.operators.remove(email: "ann@example.com", by: ConsoleBench.cli, now: console.bench.now)
        #expect(try await console.operators.list(by: ConsoleBench.cli).isEmpty)
    }

    @Test("Demo mode's admin is made once, enrolled, and signs in with what the terminal shows")
    func demoOperator() async throws {
        let console = ConsoleBench()
        let credentials = try require(try await console.operators.demoOperator(email: "admin@demo.localhost", now: console.bench.now))
        #expect(try await console.operators.demoOperator(email: "admin@demo.localhost", now: console.bench.now) == nil)
        let secret = try require(Base32.decode(credentials.secret))
        guard
            case .signedIn(_, let session) = try await console.signIn.signIn(
                email: credentials.email, password: credentials.password, otp: try console.code(secret), clientAddress: "127.0.0.1",
                now: console.bench.now)
        else { throw Missing() }
        #expect(session.role == .admin)
    }
}
