import Crypto
import Domain
import Foundation
import HTTPCore
import HTTPRouting
import Testing
import TestSupport
import UseCases

@testable import Web
@testable import App

/// The wiring of issue 40's address side over HTTP: address requests, sign-in by mail for apps,
/// password sign-in without an oracle, the mail throttles and the one address rule. The rules
/// themselves are tested without HTTP (`AddressRequestTests`, `MailSignInTests`,
/// `PasswordSignInTests`).
@Suite("Addresses, sign-in by mail and password sign-in over HTTP")
struct AddressRequestRouteTests {
    static let json: HTTPHeaders = ["X-Api-Key": StoresHarness.apiKey, "Content-Type": "application/json"]

    static func bearer(_ token: String) -> HTTPHeaders {
        var headers = json
        headers.set("Authorization", "Bearer \(token)")
        return headers
    }

    static func form(_ harness: StoresHarness, _ path: String, _ fields: [String: String]) async -> HTTPResponse {
        let body = fields.sorted { $0.key < $1.key }.map { FormURLEncoding.encode($0.key) + "=" + FormURLEncoding.encode($0.value) }
            .joined(separator: "&")
        return await harness.app.send(.post, path, headers: ["Content-Type": "application/x-www-form-urlencoded"], body: body)
    }

    static func mails(_ harness: StoresHarness, _ template: String) async throws -> Int {
        try await harness.count("SELECT count(*) FROM mail_outbox WHERE template = '\(template)'")
    }

    static func account(_ harness: StoresHarness, _ id: String) async throws -> Account {
        try await harness.app.app.database.read { try AccountRepository.require(id: id, on: $0) }
    }

    /// Delivers the outbox to the file transport and reads the newest link containing `path`.
    static func mailedLink(_ harness: StoresHarness, containing path: String) async throws -> String {
        await harness.app.app.workers.outbox.runOnce()
        let mail = MailReader(directory: harness.app.directory.path + "/mail")
        return try #require(try mail.link(containing: path))
    }

    @Test(
        "Seed 004 for an account made from a bare purchase: no password; the address it adds is a request; the password sign-in mails its confirmation, whose page sets the password"
    )
    func autoCreatedAccountReachesSetPassword() async throws {
        let harness = try await StoresHarness()
        defer { Task { await harness.stop() } }
        let claim = try await IAPAccountTests.post(harness, .apple, reference: "3000000000000401")
        let accountID = try #require(try await IAPAccountTests.signsInto(harness, claim))
        #expect(try await Self.account(harness, accountID).hasPassword == false, "an account whose password no person chose has none")
        let token = try await harness.accessToken(for: accountID)
        let set = await harness.app.send(.post, "/api/v1/account/email", headers: Self.bearer(token), body: #"{"email":"seed@example.com"}"#)
        #expect(set.status == .ok)
        #expect(set.jsonObject?["email"] as? String == "seed@example.com")
        #expect(set.jsonObject?["email_verified"] as? Bool == false)
        #expect(set.jsonObject?["email_confirmation_required"] as? Bool == true)
        _ = try await Self.mailedLink(harness, containing: "/email/confirm?token=")

        harness.clock.advance(601)
        let login = await harness.app.send(
            .post, "/api/v1/auth/login", headers: Self.json, body: #"{"email":"seed@example.com","password":"anything at all"}"#)
        #expect(login.status == .unauthorized)
        #expect(try await Self.mails(harness, "email_confirmation") == 2, "the password sign-in mails the request's confirmation link again")
        let link = try await Self.mailedLink(harness, containing: "/email/confirm?token=")
        let confirmToken = try #require(link.components(separatedBy: "token=").last)
        let page = await harness.app.send(.get, "/email/confirm?token=\(confirmToken)")
        #expect(page.status == .ok && page.text.contains(#"name="password""#), "the page offers a password to an account without one")
        let short = await Self.form(harness, "/email/confirm", ["token": confirmToken, "password": "short"])
        #expect(short.status == .unprocessableContent)
        let confirmed = await Self.form(harness, "/email/confirm", ["token": confirmToken, "password": "correct horse battery"])
        #expect(confirmed.status == .ok, "\(confirmed.text.prefix(300))")
        let good = await harness.app.send(
            .post, "/api/v1/auth/login", headers: Self.json, body: #"{"email":"seed@example.com","password":"correct horse battery"}"#)
        #expect(good.status == .ok)
        #expect(good.jsonObject?["account_id"] as? String == accountID)
    }

    @Test("Password sign-in: unknown address, wrong password and no password get the same 401 and body")
    func passwordNoOracle() async throws {
        let harness = try await StoresHarness()
        defer { Task { await harness.stop() } }
        let hash = try await PasswordWork.hash("correct horse battery")
        let now = harness.clock.now
        let secrets = harness.app.app.essentials.secrets
        try await harness.app.app.database.write { connection in
            let with = try AccountRepository.create(secrets: secrets, on: connection, now: now)
            try AccountRepository.confirmEmail("with@example.com", accountID: with.id, on: connection, now: now)
            try AccountRepository.setPasswordHash(hash, accountID: with.id, on: connection, now: now)
            let without = try AccountRepository.create(secrets: secrets, on: connection, now: now)
            try AccountRepository.confirmEmail("without@example.com", accountID: without.id, on: connection, now: now)
        }
        var bodies: [String] = []
        for email in ["ghost@example.com", "with@example.com", "without@example.com"] {
            let response = await harness.app.send(
                .post, "/api/v1/auth/login", headers: Self.json, body: #"{"email":"\#(email)","password":"not the password"}"#)
            #expect(response.status == .unauthorized, "\(email)")
            bodies.append(response.text)
        }
        #expect(Set(bodies).count == 1, "one body: \(bodies)")
        #expect(try await Self.mails(harness, "set_password") == 1, "only the account without a password is mailed")
        #expect(try await harness.count("SELECT count(*) FROM accounts") == 2, "a password sign-in never makes an account")
    }

    @Test("POST /api/v1/account/email: eight calls make one mail per address, and the client is limited")
    func accountEmailThrottled() async throws {
        let harness = try await StoresHarness()
        defer { Task { await harness.stop() } }
        let (_, token) = try await harness.signedInAccount()
        var statuses: [Int] = []
        for _ in 0..<8 {
            statuses.append(
                Int(
                    await harness.app.send(.post, "/api/v1/account/email", headers: Self.bearer(token), body: #"{"email":"target@example.com"}"#)
                        .status.code))
        }
        #expect(statuses.prefix(5).allSatisfy { $0 == 200 }, "\(statuses)")
        #expect(statuses.last == 429, "\(statuses)")
        #expect(try await Self.mails(harness, "email_confirmation") == 1)
    }

    @Test(
        "Apps sign in by mail: 202 whatever the address; the mailed code gives tokens and confirms the address; the link carries the PKCE challenge")
    func appSignInByMail() async throws {
        let harness = try await StoresHarness()
        defer { Task { await harness.stop() } }
        let now = harness.clock.now
        let secrets = harness.app.app.essentials.secrets
        let holder = try await harness.app.app.database.write { connection -> String in
            let account = try AccountRepository.create(secrets: secrets, on: connection, now: now)
            try AccountRepository.confirmEmail("reader@example.com", accountID: account.id, on: connection, now: now)
            return account.id
        }
        let verifier = String(repeating: "v", count: 64)
        let challenge = Base64URL.encode(try SHA256.hash(Array(verifier.utf8)))
        let known = await harness.app.send(
            .post, "/api/v1/auth/email", headers: Self.json, body: #"{"email":"Reader@example.com","code_challenge":"\#(challenge)"}"#)
        #expect(known.status == .accepted)
        #expect(try await Self.mails(harness, "login_link") == 1)
        let link = try await Self.mailedLink(harness, containing: "/auth/login?token=")
        let callback = await harness.app.send(.get, String(link.dropFirst("https://pay.example.com".count)))
        let code = try #require(AccountFlowTests.code(fromCallback: callback))
        let noVerifier = await Self.form(harness, "/auth/token", ["grant_type": "authorization_code", "code": code])
        #expect(noVerifier.status == .badRequest, "the challenge sent with the mail request binds the link")

        let typed = try await GoNativeSignInCodeTests.mailedCode(harness)
        let wrong = await Self.form(
            harness, "/auth/token", ["grant_type": "email_code", "email": "reader@example.com", "code": typed == "000000" ? "111111" : "000000"])
        #expect(wrong.status == .badRequest && wrong.errorCode == "invalid_grant")
        let tokens = await Self.form(harness, "/auth/token", ["grant_type": "email_code", "email": "reader@example.com", "code": typed])
        #expect(tokens.status == .ok, "\(tokens.text.prefix(200))")
        #expect(tokens.jsonObject?["account_id"] as? String == holder)
        let again = await Self.form(harness, "/auth/token", ["grant_type": "email_code", "email": "reader@example.com", "code": typed])
        #expect(again.status == .badRequest, "a code works once")
        // An address nothing knows gets its mail too (API.md Addresses: the account is made when
        // the link or code is used), with the same answer.
        let unknown = await harness.app.send(.post, "/api/v1/auth/email", headers: Self.json, body: #"{"email":"nobody@example.com"}"#)
        #expect(unknown.status == .accepted && unknown.text == known.text, "the same answer whatever the address")
        #expect(try await Self.mails(harness, "login_link") == 2)
        let bad = await harness.app.send(.post, "/api/v1/auth/email", headers: Self.json, body: #"{"email":"a>,<evil@attacker.com"}"#)
        #expect(bad.status == .badRequest && bad.text.contains("email"))
    }

    @Test(
        "Addresses the mailer would refuse are a 400 naming the field wherever an address comes in",
        arguments: [
            "a>,<evil@attacker.com", #""q"@example.com"#, "ünï@exämple.com"
        ])
    func oneAddressRule(address: String) async throws {
        let harness = try await StoresHarness()
        defer { Task { await harness.stop() } }
        let (_, token) = try await harness.signedInAccount()
        let quoted = String(decoding: try JSONSerialization.data(withJSONObject: [address], options: []), as: UTF8.self).dropFirst().dropLast()
        let account = await harness.app.send(.post, "/api/v1/account/email", headers: Self.bearer(token), body: #"{"email":\#(quoted)}"#)
        #expect(account.status == .badRequest && account.text.contains("email"))
        let resend = await harness.app.send(.post, "/api/v1/codes/resend", headers: Self.json, body: #"{"email":\#(quoted)}"#)
        #expect(resend.status == .badRequest)
        let claim = await harness.app.send(
            .post, "/api/v1/iap/google", headers: Self.json,
            body: #"{"purchase_token":"tok","sku":"pro_monthly","customer_details":{"email":\#(quoted)}}"#)
        #expect(claim.status == .badRequest && claim.text.contains("customer_details.email"))
        let checkout = await harness.app.send(
            .get, "/checkout/start?plan=monthly&email=" + FormURLEncoding.encode(address), headers: ["Accept": "text/html"])
        #expect(checkout.status == .badRequest)
        #expect(try await harness.count("SELECT count(*) FROM mail_outbox") == 0)
    }

    @Test(
        "Issue 43.3: details with a purchase another account holds become an address request on it when the claim proves it; a bare transaction id says why not"
    )
    func detailsForTheHolder() async throws {
        let harness = try await StoresHarness()
        defer { Task { await harness.stop() } }
        let first = try await IAPAccountTests.post(harness, .apple, reference: "3000000000000431")
        let holder = try #require(try await IAPAccountTests.signsInto(harness, first))
        try await harness.app.app.database.write {
            try AccountRepository.confirmEmail("old@example.com", accountID: holder, on: $0, now: harness.clock.now)
        }
        let proved = try await IAPAccountTests.post(harness, .apple, reference: "3000000000000431", email: "new@example.com")
        #expect(proved.jsonObject?["email_confirmation_required"] as? Bool == true)
        #expect(proved.jsonObject?["email_not_requested"] == nil)
        var account = try await Self.account(harness, holder)
        #expect(
            account.confirmedEmail == "old@example.com" && account.requestedEmail == "new@example.com",
            "the old address is kept until the new one is confirmed")
        #expect(try await Self.mails(harness, "email_confirmation") == 1)

        let transaction = harness.transaction(
            "3000000000000431", expires: harness.clock.now.addingTimeInterval(30 * 86400), signedAt: harness.clock.now)
        try harness.apple.addTransaction(transaction, signer: harness.pki.signer(), environment: .sandbox)
        let bare = await harness.app.send(
            .post, "/api/v1/iap/apple", headers: Self.json,
            body: #"{"transaction_id":"3000000000000431","customer_details":{"email":"other@example.com"}}"#)
        #expect(bare.status == .ok, "\(bare.text.prefix(300))")
        #expect(bare.jsonObject?["email_confirmation_required"] as? Bool == false)
        #expect(bare.jsonObject?["email_not_requested"] as? String == "holder_not_proved")
        account = try await Self.account(harness, holder)
        #expect(account.requestedEmail == "new@example.com", "the holder is not touched")
        #expect(try await Self.mails(harness, "email_confirmation") == 1)
    }
}

/// Finding 8 for an address typed at Stripe's page (where our rule cannot run): no mail is
/// queued to it and the success page does not say one was sent.
@Suite("An address typed at Stripe that mail cannot reach")
struct StripeTypedAddressTests {
    @Test("The code is shown, no mail is queued to the address, the page names no address it mailed")
    func unmailableStripeAddress() async throws {
        let harness = try CheckoutHarness()
        let session = try await harness.startCheckout("plan=monthly&app_user_id=user-1")
        try harness.pay(session, email: #""q"@example.com"#)
        let page = await harness.successPage(session)
        #expect(page.status == .ok, "\(page.text.prefix(300))")
        #expect(!page.text.contains("•••@"), "the page names no address it mailed the code to")
        #expect(try await harness.count("SELECT count(*) FROM mail_outbox") == 0)
    }
}
