import Crypto
import Domain
import Foundation
import HTTPCore
import Testing
import UseCases

@testable import App
@testable import Web

/// The console's wiring over HTTP, and every refusal: no session, a role without the action, a
/// missing or foreign CSRF token, a replayed code, a locked-out client, an expired invitation,
/// the console switched off. The rules themselves are tested without HTTP (UseCasesTests/Console).
@Suite("Console over HTTP")
struct ConsoleHTTPTests {
    @Test("Without a session every page and action is a 303 to the sign-in page, and the action does nothing")
    func noSession() async throws {
        let console = try ConsoleHarness()
        let purchase = try await console.paidPurchase()
        for path in ["/console/", "/console/search?q=buyer%40example.com", "/console/accounts/\(purchase)", "/console/audit"] {
            let page = await console.app.send(.get, path)
            #expect(page.status == .seeOther && page.headers["Location"] == "/console/sign-in", "\(path): \(page.status)")
        }
        #expect(await console.app.send(.get, "/console").headers["Location"] == "/console/")
        let action = await console.app.send(
            .post, "/console/purchases/\(purchase)/resend-code", headers: ["Content-Type": "application/x-www-form-urlencoded"],
            body: "csrf=x&reason=y")
        #expect(action.status == .seeOther && action.headers["Location"] == "/console/sign-in")
        #expect(try await console.mailCount("code_resent") == 0)
    }

    @Test("Sign-in sets a strict console cookie; any wrong field is one 401 page; sign-out ends the session on the server")
    func signIn() async throws {
        let console = try ConsoleHarness()
        let secret = try await console.enrolled("ann@example.com", .support)
        let browser = CookieBrowser(console.app)
        let form = await browser.get("/console/sign-in")
        let csrf = try #require(CookieBrowser.csrf(in: form))
        #expect(browser.setCookieLine(ConsoleGate.visitor)?.contains("Path=/console") == true)
        for (password, otp) in [("wrong password here", try console.code(secret)), (ConsoleHarness.password, "000000")] {
            let wrong = await browser.post("/console/sign-in", ["csrf": csrf, "email": "ann@example.com", "password": password, "otp": otp])
            #expect(wrong.status == .unauthorized && wrong.text.contains("The email, password or code is wrong"))
        }
        let ok = await browser.post(
            "/console/sign-in", ["csrf": csrf, "email": "ann@example.com", "password": ConsoleHarness.password, "otp": try console.code(secret)])
        #expect(ok.status == .seeOther && ok.headers["Location"] == "/console/")
        let cookie = try #require(browser.setCookieLine(ConsoleGate.cookie))
        for attribute in ["HttpOnly", "SameSite=Strict", "Path=/console", "Secure"] { #expect(cookie.contains(attribute), "\(cookie)") }
        let home = await browser.get("/console/")
        #expect(home.status == .ok && home.text.contains("ann@example.com") && home.headers["Cache-Control"] == "no-store")
        let stolen = try #require(browser.cookies[ConsoleGate.cookie])
        let out = await browser.post("/console/sign-out", ["csrf": try #require(CookieBrowser.csrf(in: home))])
        #expect(out.status == .seeOther && out.headers["Location"] == "/console/sign-in?signed_out=1")
        let replayed = await console.app.send(.get, "/console/", headers: ["Cookie": "\(ConsoleGate.cookie)=\(stolen)"])
        #expect(replayed.status == .seeOther, "the old cookie no longer works")
    }

    @Test("A TOTP code signs in once: the same code again is the 401 page")
    func replayedCode() async throws {
        let console = try ConsoleHarness()
        let secret = try await console.enrolled("ann@example.com", .viewer)
        let code = try console.code(secret)
        for expected in [HTTPStatus.seeOther, .unauthorized] {
            let browser = CookieBrowser(console.app)
            let form = await browser.get("/console/sign-in")
            let answer = await browser.post(
                "/console/sign-in",
                ["csrf": try #require(CookieBrowser.csrf(in: form)), "email": "ann@example.com", "password": ConsoleHarness.password, "otp": code])
            #expect(answer.status == expected)
        }
    }

    @Test("5 failures from one client in 15 minutes: the 6th try is 429 with Retry-After, even with the right password and code")
    func lockout() async throws {
        let console = try ConsoleHarness()
        let secret = try await console.enrolled("ann@example.com", .viewer)
        let browser = CookieBrowser(console.app)
        let form = await browser.get("/console/sign-in")
        let csrf = try #require(CookieBrowser.csrf(in: form))
        for _ in 0..<5 {
            #expect(
                await browser.post("/console/sign-in", ["csrf": csrf, "email": "ann@example.com", "password": "guess guess guess", "otp": "123456"])
                    .status == .unauthorized)
        }
        let locked = await browser.post(
            "/console/sign-in", ["csrf": csrf, "email": "ann@example.com", "password": ConsoleHarness.password, "otp": try console.code(secret)])
        #expect(locked.status == .tooManyRequests && locked.headers["Retry-After"] != nil)
    }

    @Test("An invitation page shows the secret; used or after 72 h it is refused (410); an unknown one is 404; a foreign form token is 403")
    func invitations() async throws {
        let console = try ConsoleHarness()
        let path = try await console.invite("bob@example.com", .viewer)
        let page = await console.app.send(.get, path)
        #expect(page.status == .ok && page.text.contains("<svg") && page.headers["Cache-Control"] == "no-store")
        let secret = try ConsoleHarness.secret(in: page)
        let foreign = await console.app.send(
            .post, path, headers: ["Content-Type": "application/x-www-form-urlencoded"],
            body: CookieBrowser.encode(["csrf": "forged", "password": ConsoleHarness.password, "otp": try console.code(secret)]))
        #expect(foreign.status == .forbidden)
        console.clock.advance(72 * 3600 + 1)
        #expect(await console.app.send(.get, path).status.code == 410)
        #expect(await console.app.send(.get, "/console/invite/not-a-token").status == .notFound)
    }

    @Test("A viewer's resend is a 403 page and nothing is sent or audited; a missing or foreign form token is 403 too")
    func refusals() async throws {
        let console = try ConsoleHarness()
        let purchase = try await console.paidPurchase()
        let viewer = try await console.signedIn("val@example.com", try await console.enrolled("val@example.com", .viewer))
        let support = try await console.signedIn("sue@example.com", try await console.enrolled("sue@example.com", .support))
        let viewerToken = try #require(CookieBrowser.csrf(in: await viewer.get("/console/")))
        let supportToken = try #require(CookieBrowser.csrf(in: await support.get("/console/")))
        let before = try await console.audit().count
        let path = "/console/purchases/\(purchase)/resend-code"
        let forbidden = await viewer.post(path, ["csrf": viewerToken, "reason": "asked by buyer"])
        #expect(forbidden.status == .forbidden && forbidden.headers["Content-Type"]?.hasPrefix("text/html") == true)
        #expect(await support.post(path, ["reason": "asked by buyer"]).status == .forbidden, "missing token")
        #expect(await support.post(path, ["csrf": viewerToken, "reason": "asked by buyer"]).status == .forbidden, "another session's token")
        #expect(await support.post(path, ["csrf": supportToken, "reason": "  "]).status == .badRequest, "no reason")
        #expect(try await console.mailCount("code_resent") == 0)
        #expect(try await console.audit().count == before)
        let done = await support.post(path, ["csrf": supportToken, "reason": "asked by buyer", "back": purchase])
        #expect(done.status == .seeOther && done.headers["Location"] == "/console/accounts/\(purchase)?notice=done")
        #expect(try await console.mailCount("code_resent") == 1)
        let entry = try #require(try await console.audit().first)
        #expect(
            entry.actor == "sue@example.com" && entry.action == "code.resend" && entry.reason == "asked by buyer"
                && entry.clientAddress == "198.51.100.7")
    }

    @Test("The buyer page shows the email in full and no code; lists mask it; search finds the buyer by email in any case")
    func pages() async throws {
        let console = try ConsoleHarness()
        let purchase = try await console.paidPurchase()
        let browser = try await console.signedIn("sue@example.com", try await console.enrolled("sue@example.com", .support))
        let search = await browser.get("/console/search?q=BUYER%40Example.com")
        #expect(search.status == .ok && search.text.contains("/console/accounts/") && search.text.contains("b•••@e•••.com"))
        #expect(!search.text.contains("buyer@example.com"))
        let buyer = await browser.get("/console/accounts/\(purchase)")
        #expect(buyer.status == .ok && buyer.text.contains("buyer@example.com") && buyer.text.contains("resend-code"))
        let codes = try await console.app.app.useCases.operatorActions.codes(email: "buyer@example.com")
        let code = try console.app.app.database.readSync { connection in
            try CodeRepository.reveal(try #require(codes.first), vault: try CodeVault(secrets: console.app.app.essentials.secrets))
        }
        #expect(!buyer.text.contains(code.display) && !buyer.text.contains(code.display.replacingOccurrences(of: "-", with: "")))
        #expect(await browser.get("/console/accounts/nope").status == .notFound)
        #expect(await browser.get("/console/audit?operator=sue%40example.com").status == .ok)
    }

    @Test("The request log has route patterns only: no query under /console/, no invitation, unsubscribe or redeem secret")
    func requestLog() async throws {
        let console = try ConsoleHarness()
        let path = try await console.invite("bob@example.com", .viewer)
        _ = await console.app.send(.get, path)
        _ = await console.app.send(.get, "/console/search?q=secret-query%40example.com")
        _ = await console.app.send(.get, "/redeem/K7P2-9QXM-4D8R-2WTF")
        let token = String(path.split(separator: "/").last ?? "")
        let lines = console.app.logs.lines.joined(separator: "\n")
        #expect(lines.contains("/console/invite/{token}") && lines.contains("/redeem/{code}"))
        for secret in [token, "secret-query", "K7P2-9QXM"] { #expect(!lines.contains(secret), "\(secret) in the log") }
    }

    @Test("console.enabled false: every /console/ path is 404")
    func disabled() async throws {
        let app = try TestApp(extra: ["console": ["enabled": false]])
        for path in ["/console/", "/console/sign-in", "/console/invite/x", "/console/audit"] {
            #expect(await app.send(.get, path).status == .notFound, "\(path)")
        }
    }

    @Test("Admin API actions are audited by the token's name (admin.tokens; tokens_sha256 as admin token 1) and client address")
    func adminTokenNames() async throws {
        let named = "named-admin-token-0123456789"
        let harness = try CheckoutHarness(extra: [
            "admin": [
                "tokens_sha256": [TestApp.adminTokenHash], "tokens": [["name": "ops-cli", "sha256": Hex.encode(try SHA256.hash(Array(named.utf8)))]]
            ]
        ])
        try await WebAccountTests.paidCheckout(harness)
        for (token, name) in [(named, "ops-cli"), (TestApp.adminToken, "admin token 1")] {
            harness.clock.advance(1)
            let response = await harness.app.send(
                .post, "/admin/v1/codes/resend", headers: ["Authorization": "Bearer \(token)", "Content-Type": "application/json"],
                body: #"{"email": "buyer@example.com"}"#)
            #expect(response.status == .ok, "\(response.text)")
            let entry = try #require(try await harness.app.app.useCases.operatorActions.audit(limit: 1).first)
            #expect(entry.actor == name && entry.clientAddress == "198.51.100.7", "\(entry)")
        }
    }
}

extension ConsoleHTTPTests {
    @Test("An admin's export downloads the account's document and delete erases it; support sees neither button and is refused both")
    func adminActions() async throws {
        let console = try ConsoleHarness()
        let accountID = try await console.buyerAccount()
        let support = try await console.signedIn("sue@example.com", try await console.enrolled("sue@example.com", .support))
        let admin = try await console.signedIn("ada@example.com", try await console.enrolled("ada@example.com", .admin))
        let supportPage = await support.get("/console/accounts/\(accountID)")
        #expect(supportPage.status == .ok && !supportPage.text.contains("/export") && !supportPage.text.contains("/delete"))
        let supportToken = try #require(CookieBrowser.csrf(in: supportPage))
        #expect(await support.post("/console/accounts/\(accountID)/export", ["csrf": supportToken, "reason": "buyer asked"]).status == .forbidden)
        #expect(await support.post("/console/accounts/\(accountID)/delete", ["csrf": supportToken, "reason": "buyer asked"]).status == .forbidden)
        let adminPage = await admin.get("/console/accounts/\(accountID)")
        #expect(adminPage.text.contains("/console/accounts/\(accountID)/export") && adminPage.text.contains("/console/accounts/\(accountID)/delete"))
        let adminToken = try #require(CookieBrowser.csrf(in: adminPage))
        let export = await admin.post("/console/accounts/\(accountID)/export", ["csrf": adminToken, "reason": "buyer asked for their data"])
        #expect(export.status == .ok && export.headers["Content-Disposition"]?.hasPrefix("attachment") == true && export.text.contains(accountID))
        console.clock.advance(1)
        let deleted = await admin.post("/console/accounts/\(accountID)/delete", ["csrf": adminToken, "reason": "buyer asked to be forgotten"])
        #expect(deleted.status == .seeOther && deleted.headers["Location"] == "/console/?notice=done")
        #expect(await admin.get("/console/accounts/\(accountID)").status == .notFound)
        let actions = try await console.audit().prefix(2).map { "\($0.actor) \($0.action) \($0.reason ?? "")" }
        #expect(
            actions == ["ada@example.com account.delete buyer asked to be forgotten", "ada@example.com account.export buyer asked for their data"])
    }

    @Test("Move, sign-out everywhere and a retry of an unknown mail go through their routes; an unknown retry kind is 404")
    func supportActions() async throws {
        let console = try ConsoleHarness()
        let accountID = try await console.buyerAccount()
        let purchase = try #require(try await console.app.app.useCases.operatorActions.purchases(email: "buyer@example.com").last?.id)
        let admin = try await console.signedIn("ada@example.com", try await console.enrolled("ada@example.com", .admin))
        let token = try #require(CookieBrowser.csrf(in: await admin.get("/console/")))
        let moved = await admin.post("/console/purchases/\(purchase)/move", ["csrf": token, "reason": "wrong device", "app_user_id": "user-2"])
        #expect(moved.status == .seeOther && moved.headers["Location"]?.hasPrefix("/console/accounts/") == true)
        console.clock.advance(1)
        let everywhere = await admin.post(
            "/console/accounts/\(accountID)/sign-out-everywhere", ["csrf": token, "reason": "lost phone", "back": accountID])
        #expect(everywhere.status == .seeOther && everywhere.headers["Location"] == "/console/accounts/\(accountID)?notice=done")
        #expect(await admin.post("/console/retry/mail/nope", ["csrf": token, "reason": "retry"]).status == .notFound)
        #expect(await admin.post("/console/retry/fax/nope", ["csrf": token, "reason": "retry"]).status == .notFound)
        #expect(try await console.audit().prefix(2).map(\.action) == ["account.sign_out_everywhere", "purchase.move"])
    }

    @Test(
        "A manual entitlement: the admin's form grants it for real (the export lists it until the end of the day) and ends it; support is refused with nothing done; bad input is a 400 page"
    )
    func manualEntitlement() async throws {
        let console = try ConsoleHarness()
        let accountID = try await console.buyerAccount()
        let support = try await console.signedIn("sue@example.com", try await console.enrolled("sue@example.com", .support))
        let admin = try await console.signedIn("ada@example.com", try await console.enrolled("ada@example.com", .admin))
        let path = "/console/accounts/\(accountID)/entitlements"
        let until = String(Timestamp.rfc3339(console.clock.now.addingTimeInterval(400 * 86_400)).prefix(10))
        let endsAt = Timestamp.rfc3339(try #require(ISO8601DateFormatter().date(from: until + "T00:00:00Z")).addingTimeInterval(86_400))

        let supportPage = await support.get("/console/accounts/\(accountID)")
        #expect(supportPage.status == .ok && !supportPage.text.contains("action=\"\(path)\""), "support sees no grant form")
        let supportToken = try #require(CookieBrowser.csrf(in: supportPage))
        let refused = await support.post(path, ["csrf": supportToken, "reason": "goodwill", "entitlement": "premium", "until": until])
        #expect(refused.status == .forbidden && refused.headers["Content-Type"]?.hasPrefix("text/html") == true)
        #expect(try await console.audit().allSatisfy { !$0.action.hasPrefix("entitlement.") })

        let adminPage = await admin.get("/console/accounts/\(accountID)")
        #expect(adminPage.text.contains("action=\"\(path)\"") && adminPage.text.contains("<option value=\"premium\">"))
        let token = try #require(CookieBrowser.csrf(in: adminPage))
        let unknown = await admin.post(path, ["csrf": token, "reason": "goodwill", "entitlement": "platinum", "until": until])
        #expect(unknown.status == .badRequest && unknown.text.contains("premium"), "\(unknown.status)")
        let past = await admin.post(path, ["csrf": token, "reason": "goodwill", "entitlement": "premium", "until": "2001-01-01"])
        #expect(past.status == .badRequest && past.text.contains("2001-01-01"), "\(past.status)")
        #expect(await admin.post(path, ["csrf": token, "reason": "goodwill", "entitlement": "premium", "until": "31/12/2030"]).status == .badRequest)

        let granted = await admin.post(path, ["csrf": token, "reason": "outage compensation", "entitlement": "premium", "until": until])
        #expect(granted.status == .seeOther && granted.headers["Location"] == "/console/accounts/\(accountID)?notice=done")
        let shown = await admin.get("/console/accounts/\(accountID)")
        #expect(shown.text.contains("outage compensation") && shown.text.contains(until) && shown.text.contains("name=\"end\""))
        func held() async throws -> [String: Any]? {
            let export = await admin.post("/console/accounts/\(accountID)/export", ["csrf": token, "reason": "check"])
            let list = try #require(export.jsonObject?["entitlements"] as? [[String: Any]])
            return list.first { $0["id"] as? String == "premium" && $0["active"] as? Bool == true && $0["expires_at"] as? String == endsAt }
        }
        #expect(try await held() != nil, "the grant's end (00:00 UTC after \(until)) is the entitlement's expiry")

        console.clock.advance(1)
        let ended = await admin.post(path, ["csrf": token, "reason": "granted by mistake", "entitlement": "premium", "end": "1"])
        #expect(ended.status == .seeOther)
        #expect(try await held() == nil)
        let actions = try await console.audit().filter { $0.action.hasPrefix("entitlement.") }.map {
            "\($0.actor) \($0.action) \($0.target ?? "") \($0.reason ?? "")"
        }
        #expect(
            actions == [
                "ada@example.com entitlement.end \(accountID) granted by mistake",
                "ada@example.com entitlement.grant \(accountID) outage compensation"
            ])
    }
}
