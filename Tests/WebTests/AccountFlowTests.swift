import Domain
import Foundation
import HTTPCore
import HTTPRouting
import Testing

@testable import Web
@testable import App

@Suite("Sign-in, tokens, passwords and email confirmation")
struct AccountFlowTests {
    /// An account (anonymous unless `email` is given) created as the service does.
    static func account(_ harness: CheckoutHarness, appUserID: String = "user-1", email: String? = nil) async throws -> Account {
        let services = harness.app.app.essentials
        let now = harness.clock.now
        return try await services.database.write { connection in
            let account = try AccountRepository.findOrCreate(appUserID: appUserID, secrets: services.secrets, on: connection, now: now).0
            if let email { try AccountRepository.requestEmail(email, accountID: account.id, on: connection, now: now) }
            return try AccountRepository.require(id: account.id, on: connection)
        }
    }

    static func loginToken(_ harness: CheckoutHarness, accountID: String) async throws -> String {
        let now = harness.clock.now
        return try await harness.app.app.database.write { try AuthTokenRepository.issue(.login, accountID: accountID, on: $0, now: now) }
    }

    static func form(_ harness: CheckoutHarness, _ path: String, _ fields: [String: String]) async -> HTTPResponse {
        let body = fields.sorted { $0.key < $1.key }.map { FormURLEncoding.encode($0.key) + "=" + FormURLEncoding.encode($0.value) }.joined(
            separator: "&")
        return await harness.app.send(.post, path, headers: ["Content-Type": "application/x-www-form-urlencoded"], body: body)
    }

    static func code(fromCallback response: HTTPResponse) -> String? {
        guard let location = response.headers["Location"], location.hasPrefix("exampleapp://auth/callback?code=") else { return nil }
        return FormURLEncoding.percentDecode(location.dropFirst("exampleapp://auth/callback?code=".count))
    }

    @Test("A login link works once within 10 minutes and hands the app a code it exchanges for tokens")
    func loginLink() async throws {
        let harness = try CheckoutHarness()
        let account = try await Self.account(harness)
        let token = try await Self.loginToken(harness, accountID: account.id)
        let callback = await harness.app.send(.get, "/auth/login?token=\(token)")
        #expect(callback.status == .found)
        let code = try #require(Self.code(fromCallback: callback))
        let replay = await harness.app.send(.get, "/auth/login?token=\(token)")
        #expect(replay.status.code == 410)
        #expect(replay.text.contains("sign-in link"))

        let tokens = await Self.form(harness, "/auth/token", ["grant_type": "authorization_code", "code": code])
        #expect(tokens.status == .ok)
        #expect(tokens.jsonObject?["account_id"] as? String == account.id)
        #expect(tokens.jsonObject?["token_type"] as? String == "Bearer")
        let again = await Self.form(harness, "/auth/token", ["grant_type": "authorization_code", "code": code])
        #expect(again.status == .badRequest)
        #expect(again.errorCode == "invalid_grant")

        let late = try await Self.loginToken(harness, accountID: account.id)
        harness.clock.advance(601)
        #expect(await harness.app.send(.get, "/auth/login?token=\(late)").status.code == 410)
    }

    @Test("PKCE S256: the right verifier gets tokens, a wrong or missing one does not")
    func pkce() async throws {
        let harness = try CheckoutHarness()
        let account = try await Self.account(harness)
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
        let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"  // RFC 7636 appendix B
        for (attempt, sent) in [("wrong", "x" + verifier.dropFirst()), ("missing", nil), ("right", verifier)] as [(String, String?)] {
            let token = try await Self.loginToken(harness, accountID: account.id)
            let callback = await harness.app.send(.get, "/auth/login?token=\(token)&code_challenge=\(challenge)&code_challenge_method=S256")
            let code = try #require(Self.code(fromCallback: callback))
            var fields = ["grant_type": "authorization_code", "code": code]
            if let sent { fields["code_verifier"] = String(sent) }
            let response = await Self.form(harness, "/auth/token", fields)
            #expect(response.status == (attempt == "right" ? .ok : .badRequest), "\(attempt)")
        }
        let plain = await harness.app.send(.get, "/auth/login?token=x&code_challenge=\(challenge)&code_challenge_method=plain")
        #expect(plain.status == .badRequest)
    }

    @Test("Refresh tokens rotate; presenting a used one revokes the whole family")
    func refreshRotation() async throws {
        let harness = try CheckoutHarness()
        let account = try await Self.account(harness)
        let token = try await Self.loginToken(harness, accountID: account.id)
        let code = try #require(Self.code(fromCallback: await harness.app.send(.get, "/auth/login?token=\(token)")))
        let first = await Self.form(harness, "/auth/token", ["grant_type": "authorization_code", "code": code])
        let refresh1 = try #require(first.jsonObject?["refresh_token"] as? String)
        let second = await Self.form(harness, "/auth/token", ["grant_type": "refresh_token", "refresh_token": refresh1])
        #expect(second.status == .ok)
        let access2 = try #require(second.jsonObject?["access_token"] as? String)
        let entitlements = { (access: String) in
            await harness.app.send(.get, "/api/v1/entitlements", headers: ["X-Api-Key": CheckoutHarness.apiKey, "Authorization": "Bearer \(access)"])
        }
        #expect(await entitlements(access2).status == .ok)
        let reuse = await Self.form(harness, "/auth/token", ["grant_type": "refresh_token", "refresh_token": refresh1])
        #expect(reuse.status == .badRequest && reuse.errorCode == "invalid_grant")
        #expect(await entitlements(access2).status == .unauthorized, "the family was revoked")
        let bad = await Self.form(harness, "/auth/token", ["grant_type": "password"])
        #expect(bad.status == .badRequest)
    }

    @Test("Password login: no password yet → the one 401 and a set-password link by email; set it; sign in; every attempt limited")
    func passwordLogin() async throws {
        let harness = try CheckoutHarness()
        let account = try await Self.account(harness, email: "pat@example.com")
        try await harness.app.app.database.write {
            try AccountRepository.confirmEmail("pat@example.com", accountID: account.id, on: $0, now: harness.clock.now)
        }
        let headers: HTTPHeaders = ["X-Api-Key": CheckoutHarness.apiKey, "Content-Type": "application/json"]
        let first = await harness.app.send(
            .post, "/api/v1/auth/login", headers: headers, body: #"{"email":"Pat@example.com","password":"whatever-123"}"#)
        #expect(first.status == .unauthorized, "no oracle: an account without a password answers as a wrong password")
        await harness.app.app.workers.outbox.runOnce()
        let mail = MailReader(directory: harness.app.directory.path + "/mail")
        let link = try #require(try mail.link(containing: "/auth/password/reset?token="))
        let token = try #require(link.components(separatedBy: "token=").last)

        let page = await harness.app.send(.get, "/auth/password/reset?token=\(token)")
        #expect(page.status == .ok && page.text.contains("name=\"password\""))
        let short = await Self.form(harness, "/auth/password/reset", ["token": token, "password": "short"])
        #expect(short.status == .unprocessableContent)
        // A session from before the password change stops working after it.
        let old = try await harness.app.app.database.write {
            try SessionRepository.issue(accountID: account.id, deviceID: "d", on: $0, now: harness.clock.now)
        }
        let set = await Self.form(
            harness, "/auth/password/reset", ["token": token, "password": "correct horse battery", "password_confirmation": "correct horse battery"])
        #expect(set.status == .ok, "\(set.text.prefix(300))")
        #expect(
            await harness.app.send(
                .get, "/api/v1/entitlements", headers: ["X-Api-Key": CheckoutHarness.apiKey, "Authorization": "Bearer \(old.accessToken)"]
            ).status == .unauthorized)
        #expect(await Self.form(harness, "/auth/password/reset", ["token": token, "password": "another password!"]).status.code == 410)

        let good = await harness.app.send(
            .post, "/api/v1/auth/login", headers: headers, body: #"{"email":"pat@example.com","password":"correct horse battery"}"#)
        #expect(good.status == .ok)
        #expect(good.jsonObject?["account_id"] as? String == account.id)
        let unknown = await harness.app.send(.post, "/api/v1/auth/login", headers: headers, body: #"{"email":"ghost@example.com","password":"x"}"#)
        #expect(unknown.status == .unauthorized)
        #expect(unknown.errorCode == "unauthorized")
        #expect(unknown.body == first.body, "one body for every refusal")
        // Every attempt above counted for this client (three so far), the right one included.
        for _ in 0..<(10 - 3) {
            let wrong = await harness.app.send(
                .post, "/api/v1/auth/login", headers: headers, body: #"{"email":"pat@example.com","password":"nope nope nope"}"#)
            #expect(wrong.status == .unauthorized)
        }
        let limited = await harness.app.send(
            .post, "/api/v1/auth/login", headers: headers, body: #"{"email":"pat@example.com","password":"correct horse battery"}"#)
        #expect(limited.status == .tooManyRequests)
    }

    @Test("Email confirmation: a scanner's GET confirms nothing, the button does, links work once, taken addresses are refused")
    func emailConfirmation() async throws {
        let harness = try CheckoutHarness()
        let owner = try await Self.account(harness, appUserID: "owner")
        let session = try await harness.app.app.database.write {
            try SessionRepository.issue(accountID: owner.id, deviceID: nil, on: $0, now: harness.clock.now)
        }
        let headers: HTTPHeaders = [
            "X-Api-Key": CheckoutHarness.apiKey, "Content-Type": "application/json", "Authorization": "Bearer \(session.accessToken)"
        ]
        let set = await harness.app.send(.post, "/api/v1/account/email", headers: headers, body: #"{"email":"Shared@Example.com"}"#)
        #expect(set.status == .ok)
        #expect(set.jsonObject?["email_verified"] as? Bool == false)
        let noBearer = await harness.app.send(
            .post, "/api/v1/account/email", headers: ["X-Api-Key": CheckoutHarness.apiKey, "Content-Type": "application/json"],
            body: #"{"email":"a@b.co"}"#)
        #expect(noBearer.status == .unauthorized)
        await harness.app.app.workers.outbox.runOnce()
        let mail = MailReader(directory: harness.app.directory.path + "/mail")
        let token = try #require(try mail.link(containing: "/email/confirm?token=")?.components(separatedBy: "token=").last)

        let scanned = await harness.app.send(.get, "/email/confirm?token=\(token)")
        #expect(scanned.status == .ok && scanned.text.contains("<form method=\"post\""))
        let unconfirmed = try await harness.app.app.database.read { try AccountRepository.require(id: owner.id, on: $0) }
        #expect(!unconfirmed.emailVerified, "a GET confirms nothing")

        // Another account claims the same address and confirms it first.
        let rival = try await Self.account(harness, appUserID: "rival", email: "shared@example.com")
        let rivalToken = try await harness.app.app.database.write {
            try AuthTokenRepository.issue(.emailConfirmation, accountID: rival.id, email: "shared@example.com", on: $0, now: harness.clock.now)
        }
        #expect(await Self.form(harness, "/email/confirm", ["token": rivalToken]).status == .ok)
        let taken = await Self.form(harness, "/email/confirm", ["token": token])
        #expect(taken.status == .conflict)
        #expect(taken.text.contains("another account"))
        let stillOwner = try await harness.app.app.database.read { try AccountRepository.require(id: owner.id, on: $0) }
        #expect(!stillOwner.emailVerified)

        let used = await Self.form(harness, "/email/confirm", ["token": rivalToken])
        #expect(used.status.code == 410)
        #expect(used.text.contains("/email/confirm/resend"))
        let garbage = await harness.app.send(.get, "/email/confirm?token=%3Cscript%3E")
        #expect(garbage.status.code == 410 && !garbage.text.contains("<script>"))
    }
}

@Suite("Bad input on the account and resend forms")
struct AccountInputTests {
    @Test("An address that is not an email is 400 on the API and on the resend form; a huge body is refused")
    func badEmails() async throws {
        let harness = try CheckoutHarness()
        let account = try await AccountFlowTests.account(harness)
        let session = try await harness.app.app.database.write {
            try SessionRepository.issue(accountID: account.id, deviceID: nil, on: $0, now: harness.clock.now)
        }
        let headers: HTTPHeaders = [
            "X-Api-Key": CheckoutHarness.apiKey, "Content-Type": "application/json", "Authorization": "Bearer \(session.accessToken)"
        ]
        for bad in [#"{"email":"not-an-email"}"#, #"{"email":"a@b"}"#, #"{"email":"a b@c.de"}"#, #"{"email":5}"#, "{}"] {
            let response = await harness.app.send(.post, "/api/v1/account/email", headers: headers, body: bad)
            #expect(response.status == .badRequest, "\(bad)")
        }
        let huge = await harness.app.send(
            .post, "/api/v1/account/email", headers: headers, body: "{\"email\":\"" + String(repeating: "a", count: 5000) + "@x.io\"}")
        #expect(huge.status == .badRequest)
        let page = await AccountFlowTests.form(harness, "/redeem/resend", ["email": "nope"])
        #expect(page.status == .badRequest)
        #expect(page.headers["Content-Type"]?.hasPrefix("text/html") == true)
        #expect(try await harness.count("SELECT count(*) FROM mail_outbox") == 0)
    }
}
