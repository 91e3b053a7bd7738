import Domain
import Foundation
import Storage
import Synchronization
import Testing
import UseCases

@testable import Mail

/// The parts the address rules are tested with, no HTTP.
struct AddressBench {
    let bench: UseCaseBench
    let hasher = CountingHasher()

    init() throws { bench = try UseCaseBench() }

    var authMail: AuthMail { AuthMail(mail: bench.mail, links: bench.links, now: bench.nowFunction, secrets: bench.secrets) }
    var setEmail: SetAccountEmail { SetAccountEmail(database: bench.database, authMail: authMail, mail: bench.mail) }
    var confirm: ConfirmEmail { ConfirmEmail(database: bench.database, authMail: authMail, mail: bench.mail) }
    var signIn: SignIn { SignIn(database: bench.database, authMail: authMail, mail: bench.mail, logger: .disabled, hasher: hasher) }
    var webSignIn: WebSignIn {
        WebSignIn(database: bench.database, mail: bench.mail, links: bench.links, authMail: authMail, secrets: bench.secrets, logger: .disabled)
    }

    /// An account with an app user, a password and a bearer token (a signed-in app user).
    func appAccount(_ appUserID: String, password: String? = nil) async throws -> (account: Account, bearer: String) {
        var hash: String?
        if let password { hash = try await PasswordWork.hash(password) }
        let (secrets, now) = (bench.secrets, bench.now)
        return try bench.database.writeSync { connection in
            let account = try AccountRepository.findOrCreate(appUserID: appUserID, secrets: secrets, on: connection, now: now).0
            if let hash { try AccountRepository.setPasswordHash(hash, accountID: account.id, on: connection, now: now) }
            let tokens = try SessionRepository.issue(accountID: account.id, deviceID: nil, on: connection, now: now)
            return (try AccountRepository.require(id: account.id, on: connection), tokens.accessToken)
        }
    }

    func account(_ id: String) throws -> Account {
        try bench.database.readSync { try AccountRepository.require(id: id, on: $0) }
    }

    /// Mails queued with `template`.
    func mails(_ template: String) throws -> Int {
        try bench.database.readSync { try $0.queryOne("SELECT COUNT(*) AS n FROM mail_outbox WHERE template = ?", [template])?.int("n") ?? 0 }
    }

    /// The newest queued mail of `template` (to `recipient` when given): its recipient and
    /// parameters (opened with the outbox's key).
    func newest(_ template: String, to recipient: String? = nil) throws -> (to: String, parameters: [String: String]) {
        let row = try require(
            try bench.database.readSync {
                try $0.queryOne(
                    """
                    SELECT id, recipient, parameters FROM mail_outbox WHERE template = ? AND recipient LIKE ?
                    ORDER BY created_at DESC, id DESC LIMIT 1
                    """,
                    [template, recipient ?? "%"])
            })
        let id = try row.string("id")
        let json = try OutboxCipher.open(try row.string("parameters"), outboxID: id, with: try OutboxCipher(key: bench.secrets.mailParameterKey))
        return (try row.string("recipient"), try JSONDecoder().decode([String: String].self, from: Data(json.utf8)))
    }

    /// The token in the newest mail of `template`'s `parameter` URL.
    func token(_ template: String, _ parameter: String, to recipient: String? = nil) throws -> String {
        try require(try newest(template, to: recipient).parameters[parameter]?.components(separatedBy: "token=").last)
    }
}

/// A password hasher that counts its calls (every sign-in path must run it once).
final class CountingHasher: PasswordHashing {
    let calls = Mutex(0)
    var count: Int { calls.withLock { $0 } }

    func verify(_ password: String, against stored: String) async -> Bool {
        calls.withLock { $0 += 1 }
        return await ScryptPasswords().verify(password, against: stored)
    }
}

/// API.md "Who may act for an account", Addresses: an address set on an account is a request
/// until its mailed link confirms it; only a confirmed address makes an account reachable.
@Suite("Addresses as requests")
struct AddressRequestTests {
    @Test("Takeover 2: an address set unconfirmed on an attacker's account never leads there, by link or by password")
    func takeoverTwo() async throws {
        let parts = try AddressBench()
        let bench = parts.bench
        let (attacker, bearer) = try await parts.appAccount("attacker", password: "attacker's own password")
        // The victim paid on the web and never opened the app.
        _ = try bench.paidPurchase("sub_victim", email: "victim@example.com")
        let requested = try await parts.setEmail.set("victim@example.com", bearer: bearer, now: bench.now)
        #expect(requested.confirmationRequired && requested.account.email == "victim@example.com" && !requested.account.emailVerified)

        // The victim signs in on the web by the mailed link.
        bench.advance(601)
        try await parts.webSignIn.requestLink(email: "victim@example.com", now: bench.now)
        let link = try parts.token("login_link", "login_url")
        guard case .valid(let issued) = try await parts.webSignIn.signIn(link: link, now: bench.now) else {
            Issue.record("the victim's link did not sign in")
            return
        }
        #expect(issued.session.accountID != attacker.id, "the victim does not land in the attacker's account")
        #expect(try parts.account(issued.session.accountID).confirmedEmail == "victim@example.com")
        #expect(try parts.account(attacker.id).confirmedEmail == nil, "nothing was confirmed on the attacker's account")

        // The attacker's own password with the victim's address opens nothing.
        guard case .refused = try await parts.signIn.password(email: "victim@example.com", password: "attacker's own password", now: bench.now) else {
            Issue.record("the attacker signed in with the victim's address")
            return
        }
    }

    @Test("A request keeps the confirmed address until its own link confirms it; a newer request ends older links")
    func requestKeepsConfirmed() async throws {
        let parts = try AddressBench()
        let bench = parts.bench
        let (account, bearer) = try await parts.appAccount("user-1")
        let now = bench.now
        try bench.database.writeSync { try AccountRepository.confirmEmail("old@example.com", accountID: account.id, on: $0, now: now) }
        let first = try await parts.setEmail.set("first@example.com", bearer: bearer, now: now)
        #expect(first.account.email == "old@example.com" && first.account.emailVerified && first.confirmationRequired)
        #expect(first.account.requestedEmail == "first@example.com")
        let firstLink = try parts.token("email_confirmation", "confirm_url", to: "first@example.com")
        _ = try await parts.setEmail.set("second@example.com", bearer: bearer, now: now)
        let secondLink = try parts.token("email_confirmation", "confirm_url", to: "second@example.com")
        #expect(try await parts.confirm.confirm(firstLink, now: now) == .rejected(.used), "a newer request ends the older link")
        #expect(try parts.account(account.id).confirmedEmail == "old@example.com")
        #expect(try await parts.confirm.confirm(secondLink, now: now) == .confirmed(email: "second@example.com"))
        let after = try parts.account(account.id)
        #expect(after.confirmedEmail == "second@example.com" && after.requestedEmail == nil)
        // Asking for the confirmed address again changes nothing and mails nothing.
        let before = try parts.mails("email_confirmation")
        let again = try await parts.setEmail.set("Second@example.com", bearer: bearer, now: now)
        #expect(!again.confirmationRequired)
        #expect(try parts.mails("email_confirmation") == before)
    }

    @Test("Confirming an address another account confirmed: refused, nothing changed — unless that account holds nothing but it")
    func confirmedElsewhere() async throws {
        let parts = try AddressBench()
        let bench = parts.bench
        let now = bench.now
        let (keeper, _) = try await parts.appAccount("keeper")
        try bench.database.writeSync { try AccountRepository.confirmEmail("kept@example.com", accountID: keeper.id, on: $0, now: now) }
        let (asker, bearer) = try await parts.appAccount("asker")
        _ = try await parts.setEmail.set("kept@example.com", bearer: bearer, now: now)
        #expect(try await parts.confirm.confirm(try parts.token("email_confirmation", "confirm_url"), now: now) == .takenByAnotherAccount)
        #expect(try parts.account(keeper.id).confirmedEmail == "kept@example.com")
        #expect(try parts.account(asker.id).confirmedEmail == nil)

        // An account a sign-in made (nothing but the address) gives it up.
        let bare = try bench.database.writeSync { connection -> Account in
            let account = try AccountRepository.create(secrets: bench.secrets, on: connection, now: now)
            try AccountRepository.confirmEmail("moves@example.com", accountID: account.id, on: connection, now: now)
            return account
        }
        bench.advance(601)
        _ = try await parts.setEmail.set("moves@example.com", bearer: bearer, now: bench.now)
        #expect(
            try await parts.confirm.confirm(try parts.token("email_confirmation", "confirm_url"), now: bench.now)
                == .confirmed(email: "moves@example.com"))
        #expect(try parts.account(asker.id).confirmedEmail == "moves@example.com")
        #expect(try parts.account(bare.id).confirmedEmail == nil)
    }

    @Test("Eight requests for one address make one mail; another address waits its own interval")
    func requestsThrottledPerAddress() async throws {
        let parts = try AddressBench()
        let bench = parts.bench
        let (_, bearer) = try await parts.appAccount("user-1")
        for _ in 0..<8 { _ = try await parts.setEmail.set("target@example.com", bearer: bearer, now: bench.now) }
        #expect(try parts.mails("email_confirmation") == 1)
        _ = try await parts.setEmail.set("other@example.com", bearer: bearer, now: bench.now)
        #expect(try parts.mails("email_confirmation") == 2)
        bench.advance(601)
        _ = try await parts.setEmail.set("target@example.com", bearer: bearer, now: bench.now)
        #expect(try parts.mails("email_confirmation") == 3)
        #expect(try bench.dump("resend_throttle").allSatisfy { !$0.contains("@") }, "the throttle keeps no address")
    }
}

/// Password sign-in is no oracle (issue 40, finding 4; issue 43 item 1).
@Suite("Password sign-in without an oracle")
struct PasswordSignInTests {
    @Test("Unknown address, wrong password and no password: one answer, one hash each, and only the mails that are due")
    func noOracle() async throws {
        let parts = try AddressBench()
        let bench = parts.bench
        let now = bench.now
        let (withPassword, _) = try await parts.appAccount("with", password: "correct horse battery")
        let (without, _) = try await parts.appAccount("without")
        let (requester, requesterBearer) = try await parts.appAccount("requester")
        try bench.database.writeSync { connection in
            try AccountRepository.confirmEmail("with@example.com", accountID: withPassword.id, on: connection, now: now)
            try AccountRepository.confirmEmail("without@example.com", accountID: without.id, on: connection, now: now)
        }
        _ = try await parts.setEmail.set("asked@example.com", bearer: requesterBearer, now: now)
        let accounts = try bench.database.readSync { try $0.queryOne("SELECT COUNT(*) AS n FROM accounts")?.int("n") }

        for (email, password) in [
            ("ghost@example.com", "whatever"), ("with@example.com", "wrong one"), ("without@example.com", "whatever"),
            ("asked@example.com", "whatever")
        ] {
            let before = parts.hasher.count
            guard case .refused = try await parts.signIn.password(email: email, password: password, now: now) else {
                Issue.record("\(email) signed in")
                continue
            }
            #expect(parts.hasher.count == before + 1, "\(email): the hash work runs on every path")
        }
        #expect(try bench.database.readSync { try $0.queryOne("SELECT COUNT(*) AS n FROM accounts")?.int("n") } == accounts, "never makes an account")
        #expect(try parts.mails("set_password") == 1)
        #expect(try parts.newest("set_password").to == "without@example.com")
        #expect(try parts.mails("email_confirmation") == 2, "the request's confirmation link again, though one went just now")
        let resent = try parts.newest("email_confirmation")
        #expect(resent.to == "asked@example.com")
        guard case .valid(let pending) = try await parts.confirm.peek(try parts.token("email_confirmation", "confirm_url"), now: now) else {
            Issue.record("the resent confirmation link is not live")
            return
        }
        #expect(pending.email == "asked@example.com" && pending.offersPassword, "its page offers a password")
        _ = requester

        // At most one password mail per address per interval.
        _ = try await parts.signIn.password(email: "without@example.com", password: "again", now: now)
        _ = try await parts.signIn.password(email: "asked@example.com", password: "again", now: now)
        #expect(try parts.mails("set_password") == 1 && parts.mails("email_confirmation") == 2)

        guard case .signedIn(let tokens) = try await parts.signIn.password(email: "With@example.com", password: "correct horse battery", now: now)
        else {
            Issue.record("the right password did not sign in")
            return
        }
        #expect(tokens.accountID == withPassword.id)
    }

    @Test("A confirmation link's page sets a password when the account has none, and only then")
    func confirmationSetsPassword() async throws {
        let parts = try AddressBench()
        let bench = parts.bench
        let (account, bearer) = try await parts.appAccount("user-1")
        _ = try await parts.setEmail.set("me@example.com", bearer: bearer, now: bench.now)
        let token = try parts.token("email_confirmation", "confirm_url")
        #expect(try await parts.confirm.confirm(token, password: "correct horse battery", now: bench.now) == .confirmed(email: "me@example.com"))
        guard case .signedIn(let tokens) = try await parts.signIn.password(email: "me@example.com", password: "correct horse battery", now: bench.now)
        else {
            Issue.record("the password set on the confirmation page does not sign in")
            return
        }
        #expect(tokens.accountID == account.id)
    }
}

/// Apps sign in by mail (`MailSignIn`).
@Suite("Sign-in by mail for apps")
struct MailSignInTests {
    @Test("The mailed code gives tokens for the account the address opens and confirms it there; one mail per interval; a new mail ends the old code")
    func codeSignsIn() async throws {
        let parts = try AddressBench()
        let bench = parts.bench
        let byMail = parts.signIn.byMail
        _ = try bench.paidPurchase("sub_1", email: "buyer@example.com")
        try await byMail.request(email: "Buyer@example.com", codeChallenge: nil, now: bench.now)
        #expect(try parts.mails("login_link") == 1)
        let mailed = try parts.newest("login_link")
        #expect(mailed.parameters["login_url"]?.hasPrefix("https://pay.example.test/auth/login?token=") == true)
        let firstCode = try require(mailed.parameters["sign_in_code"])
        try await byMail.request(email: "buyer@example.com", codeChallenge: nil, now: bench.now)
        #expect(try parts.mails("login_link") == 1, "at most one sign-in mail per address per interval")
        bench.advance(601)
        try await byMail.request(email: "buyer@example.com", codeChallenge: nil, now: bench.now)
        let code = try require(try parts.newest("login_link").parameters["sign_in_code"])
        if firstCode != code {
            await #expect(throws: UseCaseError.self) { try await byMail.exchange(email: "buyer@example.com", code: firstCode, now: bench.now) }
        }
        let tokens = try await byMail.exchange(email: "buyer@example.com", code: code, now: bench.now)
        #expect(try parts.account(tokens.accountID).confirmedEmail == "buyer@example.com")
        await #expect(throws: UseCaseError.self) { try await byMail.exchange(email: "buyer@example.com", code: code, now: bench.now) }
        // An address that leads to no account gets its mail too: the account is made when the
        // code is used (API.md Addresses), with the address confirmed.
        try await byMail.request(email: "nobody@example.com", codeChallenge: nil, now: bench.now)
        #expect(try parts.mails("login_link") == 3)
        // Mailed in the same (test clock) millisecond as the buyer's: ask for nobody's own.
        let fresh = try require(try parts.newest("login_link", to: "nobody@example.com").parameters["sign_in_code"])
        let made = try await byMail.exchange(email: "nobody@example.com", code: fresh, now: bench.now)
        #expect(try parts.account(made.accountID).confirmedEmail == "nobody@example.com")
    }

    @Test("At most 10 wrong codes per address per 24 hours, over every code")
    func wrongCodesPerDay() async throws {
        let parts = try AddressBench()
        let bench = parts.bench
        let byMail = parts.signIn.byMail
        _ = try bench.paidPurchase("sub_1", email: "buyer@example.com")
        var code = ""
        for round in 0..<3 {
            try await byMail.request(email: "buyer@example.com", codeChallenge: nil, now: bench.now)
            code = try require(try parts.newest("login_link").parameters["sign_in_code"])
            let wrong = code == "000000" ? "111111" : "000000"
            for _ in 0..<(round < 2 ? 4 : 2) {
                await #expect(throws: UseCaseError.self) { try await byMail.exchange(email: "buyer@example.com", code: wrong, now: bench.now) }
            }
            if round < 2 { bench.advance(601) }
        }
        await #expect(throws: UseCaseError.self, "ten wrong tries today: even the right code is refused") {
            try await byMail.exchange(email: "buyer@example.com", code: code, now: bench.now)
        }
        bench.advance(86400)
        try await byMail.request(email: "buyer@example.com", codeChallenge: nil, now: bench.now)
        let fresh = try require(try parts.newest("login_link").parameters["sign_in_code"])
        _ = try await byMail.exchange(email: "buyer@example.com", code: fresh, now: bench.now)
    }
}
