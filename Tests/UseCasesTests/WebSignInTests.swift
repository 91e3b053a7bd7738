import Domain
import Foundation
import Storage
import Testing
import UseCases

@testable import Mail

/// The rules of the buyer's web sign-in and sessions (`WebSignIn`, `WebSessionRepository`),
/// without HTTP.
@Suite("Web sign-in and sessions")
struct WebSignInTests {
    static func signIn(_ bench: UseCaseBench) -> WebSignIn {
        WebSignIn(
            database: bench.database, mail: bench.mail, links: bench.links,
            authMail: AuthMail(mail: bench.mail, links: bench.links, now: bench.nowFunction, secrets: bench.secrets),
            secrets: bench.secrets, logger: .disabled)
    }

    /// The token of the newest sign-in link queued (its parameters opened with the outbox's key).
    static func linkToken(_ bench: UseCaseBench) throws -> String {
        let row = try bench.database.readSync {
            try $0.queryOne("SELECT id, parameters FROM mail_outbox WHERE template = 'login_link' ORDER BY created_at DESC, id DESC LIMIT 1")
        }
        let stored = try require(row)
        let id = try stored.string("id")
        let json = try OutboxCipher.open(try stored.string("parameters"), outboxID: id, with: try OutboxCipher(key: bench.secrets.mailParameterKey))
        let parameters = try JSONDecoder().decode([String: String].self, from: Data(json.utf8))
        let url = try require(parameters["login_url"])
        #expect(url.hasPrefix("https://pay.example.test/account/sign-in/link?token="))
        return try require(url.components(separatedBy: "token=").last)
    }

    @Test("A link goes to any address, at most one per resend interval; until it is used the address opens nothing and no account confirms it")
    func requestLink() async throws {
        let bench = try UseCaseBench()
        _ = try bench.paidPurchase(email: "buyer@example.com")
        let signIn = Self.signIn(bench)
        let before = try bench.pendingMail()
        // API.md Addresses: else a new account, made when the link or code is used (an app's
        // sign-in by mail registers a new buyer this way).
        try await signIn.requestLink(email: "nobody@example.com", now: bench.now)
        #expect(try bench.pendingMail() == before + 1)
        try await signIn.requestLink(email: "Buyer@Example.com", now: bench.now)
        #expect(try bench.pendingMail() == before + 2)
        // Issue 40: no account confirms the address before the link is used; at most an account
        // that holds nothing asks for it, and a request opens nothing.
        for email in ["nobody@example.com", "buyer@example.com"] {
            #expect(try bench.database.readSync { try AccountRepository.find(confirmedEmail: email, on: $0) } == nil)
            #expect(try bench.database.readSync { try AccountRepository.all(email: email, on: $0) }.allSatisfy { !$0.emailVerified })
        }
        bench.advance(30)
        try await signIn.requestLink(email: "buyer@example.com", now: bench.now)
        #expect(try bench.pendingMail() == before + 2, "at most one sign-in mail per address per resend interval")
        bench.advance(560)
        try await signIn.requestLink(email: "buyer@example.com", now: bench.now)
        #expect(try bench.pendingMail() == before + 2)
        bench.advance(11)
        try await signIn.requestLink(email: "buyer@example.com", now: bench.now)
        #expect(try bench.pendingMail() == before + 3)
        #expect(
            try bench.database.readSync { try AccountRepository.all(email: "buyer@example.com", on: $0) }.count <= 1,
            "asking again makes no second account")
        #expect(try bench.dump("resend_throttle").allSatisfy { !$0.contains("@") }, "the throttle keeps no address")
    }

    @Test("A link for the payer of a checkout started in the app signs into that app's account and gives it the address")
    func linkToTheHoldingAccount() async throws {
        let bench = try UseCaseBench()
        let (purchase, _) = try bench.paidPurchase(email: "buyer@example.com")
        let now = bench.now
        let holder = try bench.database.writeSync { connection in
            let account = try AccountRepository.findOrCreate(appUserID: "user-1", secrets: bench.secrets, on: connection, now: now).0
            try connection.execute("UPDATE purchases SET account_id = ? WHERE id = ?", [account.id, purchase.id])
            return account
        }
        let signIn = Self.signIn(bench)
        try await signIn.requestLink(email: "buyer@example.com", now: now)
        guard case .valid(let issued) = try await signIn.signIn(link: try Self.linkToken(bench), now: now) else {
            Issue.record("the link did not sign in")
            return
        }
        #expect(issued.session.accountID == holder.id)
        let account = try bench.database.readSync { try AccountRepository.find(id: holder.id, on: $0) }
        #expect(account?.email == "buyer@example.com" && account?.emailVerified == true)
    }

    @Test("Using a link confirms the address and opens a session; a second use, or one after 10 minutes, is refused")
    func useLink() async throws {
        let bench = try UseCaseBench()
        _ = try bench.paidPurchase(email: "buyer@example.com")
        let signIn = Self.signIn(bench)
        try await signIn.requestLink(email: "buyer@example.com", now: bench.now)
        let token = try Self.linkToken(bench)
        #expect(try await signIn.checkLink(token, now: bench.now) == nil)
        guard case .valid(let issued) = try await signIn.signIn(link: token, now: bench.now) else {
            Issue.record("the link did not sign in")
            return
        }
        #expect(try await signIn.session(issued.cookieValue, now: bench.now)?.accountID == issued.session.accountID)
        let account = try bench.database.readSync { try AccountRepository.find(id: issued.session.accountID, on: $0) }
        #expect(account?.emailVerified == true)
        guard case .rejected(.used) = try await signIn.signIn(link: token, now: bench.now) else {
            Issue.record("a used link signed in again")
            return
        }

        bench.advance(601)
        try await signIn.requestLink(email: "buyer@example.com", now: bench.now)
        let late = try Self.linkToken(bench)
        bench.advance(601)
        #expect(try await signIn.checkLink(late, now: bench.now) == .expired)
    }

    @Test("Sessions slide by use at most once an hour, end after 30 idle days, at sign-out, and when the account's sessions end")
    func sessionLifetime() async throws {
        let bench = try UseCaseBench()
        let signIn = Self.signIn(bench)
        let now = bench.now
        let account = try bench.database.writeSync { try AccountRepository.create(email: "a@example.com", secrets: bench.secrets, on: $0, now: now) }
        let issued = try bench.database.writeSync { try WebSessionRepository.issue(accountID: account.id, on: $0, now: now) }

        bench.advance(600)
        let early = try #require(try await signIn.session(issued.cookieValue, now: bench.now))
        #expect(!early.extended && early.expiresAt == issued.session.expiresAt, "no write within the hour")
        bench.advance(29 * 86400)
        let slid = try #require(try await signIn.session(issued.cookieValue, now: bench.now))
        #expect(slid.extended && slid.expiresAt == bench.now.addingTimeInterval(WebSessionRepository.lifetime))
        bench.advance(30 * 86400 - 1)
        let lastSecond = try bench.database.readSync { [now = bench.now] in try WebSessionRepository.find(issued.cookieValue, on: $0, now: now) }
        #expect(lastSecond != nil)
        bench.advance(2)
        #expect(try await signIn.session(issued.cookieValue, now: bench.now) == nil, "30 idle days")

        let second = try bench.database.writeSync { [now = bench.now] in try WebSessionRepository.issue(accountID: account.id, on: $0, now: now) }
        let third = try bench.database.writeSync { [now = bench.now] in try WebSessionRepository.issue(accountID: account.id, on: $0, now: now) }
        try await signIn.signOut(second.session, now: bench.now)
        #expect(try await signIn.session(second.cookieValue, now: bench.now) == nil)
        #expect(try await signIn.session(third.cookieValue, now: bench.now) != nil, "signing out ends that browser's session only")
        try bench.database.writeSync { try SessionRepository.revokeAll(accountID: account.id, on: $0) }
        #expect(try await signIn.session(third.cookieValue, now: bench.now) == nil, "a password change ends every session")

        let tampered = String(third.cookieValue.dropLast()) + (third.cookieValue.hasSuffix("A") ? "B" : "A")
        #expect(try await signIn.session(tampered, now: bench.now) == nil)
        #expect(try await signIn.session("web_x.y", now: bench.now) == nil)
    }

    @Test("A password signs in only when it matches; an account without one gets a set-password link")
    func passwordSignIn() async throws {
        let bench = try UseCaseBench()
        let signIn = Self.signIn(bench)
        let now = bench.now
        let hash = try await PasswordWork.hash("correct horse battery")
        let (withPassword, _) = try bench.database.writeSync { connection in
            let account = try AccountRepository.create(email: "pat@example.com", secrets: bench.secrets, on: connection, now: now)
            try AccountRepository.confirmEmail("pat@example.com", accountID: account.id, on: connection, now: now)
            try AccountRepository.setPasswordHash(hash, accountID: account.id, on: connection, now: now)
            let sam = try AccountRepository.create(email: "sam@example.com", secrets: bench.secrets, on: connection, now: now)
            try AccountRepository.confirmEmail("sam@example.com", accountID: sam.id, on: connection, now: now)
            return (account, sam)
        }
        guard case .signedIn(let issued) = try await signIn.signIn(email: "PAT@example.com", password: "correct horse battery", now: now) else {
            Issue.record("the right password did not sign in")
            return
        }
        #expect(issued.session.accountID == withPassword.id)
        guard case .refused = try await signIn.signIn(email: "pat@example.com", password: "wrong", now: now) else {
            Issue.record("a wrong password signed in")
            return
        }
        guard case .refused = try await signIn.signIn(email: "nobody@example.com", password: "x", now: now) else {
            Issue.record("an unknown email signed in")
            return
        }
        guard case .refused = try await signIn.signIn(email: "sam@example.com", password: "anything", now: now) else {
            Issue.record("an account without a password signed in")
            return
        }
        #expect(try bench.pendingMail() == 1, "the account without a password was mailed its set-password link")
    }

    @Test("Deleting through a web session ends every web session of the account; a repeat with the same cookie answers the same")
    func deletionEndsWebSessions() async throws {
        let bench = try UseCaseBench()
        let signIn = Self.signIn(bench)
        let now = bench.now
        let account = try bench.database.writeSync { try AccountRepository.create(email: "a@example.com", secrets: bench.secrets, on: $0, now: now) }
        let first = try bench.database.writeSync { try WebSessionRepository.issue(accountID: account.id, on: $0, now: now) }
        let other = try bench.database.writeSync { try WebSessionRepository.issue(accountID: account.id, on: $0, now: now) }
        let delete = DeleteAccount(database: bench.database)
        #expect(try await delete.signedIn(.webSession(first.cookieValue), now: now) == .deleted(accountID: account.id))
        #expect(try await signIn.session(other.cookieValue, now: now) == nil)
        #expect(try await delete.signedIn(.webSession(first.cookieValue), now: now) == .alreadyDeleted(accountID: account.id))
        await #expect(throws: UseCaseError.self) { try await delete.signedIn(.webSession("web_unknown.secret"), now: now) }
    }
}
