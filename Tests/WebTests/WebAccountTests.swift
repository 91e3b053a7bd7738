import Domain
import Foundation
import HTTPCore
import Mail
import Testing
import TestSupport
import UseCases

@testable import App
@testable import Web

/// The buyer's web account through HTTP as a browser does it: a cookie jar, forms with their
/// CSRF tokens, redirects (API.md "The buyer's web account"). The rules are tested without HTTP
/// in `WebSignInTests`.
@Suite("The buyer's web account as a browser")
struct WebAccountTests {
    /// A paid web checkout by `email` (no app involved): its success page has been shown.
    static func paidCheckout(_ harness: CheckoutHarness, email: String = "buyer@example.com") async throws {
        let session = try await harness.startCheckout("plan=monthly&email=" + email.replacingOccurrences(of: "@", with: "%40"))
        try harness.pay(session, email: email)
        #expect(await harness.successPage(session).status == .ok)
    }

    /// Signs `browser` in by the emailed link, as a buyer does; returns the account page.
    static func signInByLink(_ harness: CheckoutHarness, _ browser: CookieBrowser, email: String = "buyer@example.com") async throws -> HTTPResponse {
        let form = await browser.get("/account/sign-in")
        let csrf = try #require(CookieBrowser.csrf(in: form))
        let sent = await browser.post("/account/sign-in", ["csrf": csrf, "email": email, "next": "/account"])
        #expect(sent.status == .ok && sent.text.contains("Check your email"), "\(sent.status) \(sent.text.prefix(300))")
        await harness.app.app.workers.outbox.runOnce()
        let link = try #require(try MailReader(directory: harness.app.directory.path + "/mail").link(containing: "/account/sign-in/link?"))
        let path = String(link.dropFirst("https://pay.example.com".count))
        let button = await browser.get(path)
        #expect(button.status == .ok)
        #expect(browser.cookies[WebCookies.session] == nil, "opening the link signs no one in (mail scanners open links)")
        let token = try #require(path.components(separatedBy: "token=").last)
        let signedIn = await browser.post("/account/sign-in/link", ["csrf": try #require(CookieBrowser.csrf(in: button)), "token": token])
        #expect(signedIn.status == .seeOther && signedIn.headers["Location"] == "/account", "\(signedIn.status) \(signedIn.text.prefix(300))")
        return await browser.get("/account")
    }

    @Test(
        "A web buyer signs in by the emailed link: /manage leads to the form, the link page has a button, the cookie is HttpOnly, Lax, Secure, 30 days; the account page lists the purchase"
    )
    func signInByLink() async throws {
        let harness = try CheckoutHarness()
        try await Self.paidCheckout(harness)
        let browser = CookieBrowser(harness.app)
        let manage = await browser.get("/manage")
        #expect(manage.status == .seeOther && manage.headers["Location"] == "/account/sign-in")
        #expect(await browser.get("/account").headers["Location"] == "/account/sign-in", "signed out, the page sends to the form")

        let page = try await Self.signInByLink(harness, browser, email: "Buyer@Example.com")
        #expect(page.status == .ok)
        let cookie = try #require(browser.setCookieLine(WebCookies.session))
        for attribute in ["HttpOnly", "SameSite=Lax", "Secure", "Path=/", "Max-Age=2592000"] {
            #expect(cookie.contains(attribute), "\(attribute) missing from \(cookie)")
        }
        #expect(page.text.contains("buyer@example.com") && !page.text.contains("not confirmed yet"), "the link confirmed the address")
        #expect(page.text.contains("Web") && page.text.contains("active") && page.text.contains("Renews"))
        for form in ["/account/resend", "/account/billing", "/account/delete", "/account/sign-out"] {
            #expect(page.text.contains(#"action="\#(form)""#), "\(form) form missing")
        }
        #expect(page.text.contains(#"href="/account/export""#))
        #expect(page.headers["Cache-Control"] == "no-store")
        #expect(page.headers["Content-Security-Policy"]?.contains("form-action 'self' https://billing.stripe.com") == true)
        #expect(await browser.get("/manage").headers["Location"] == "/account")

        let secret = try #require(browser.cookies[WebCookies.session]?.split(separator: ".").last.map(String.init))
        let leaks = try await AccountDeletionTests.everyRow(harness).filter { $0.row.contains(secret) }
        #expect(leaks.isEmpty, "the session secret is stored only hashed: \(leaks.map(\.table))")
    }

    @Test("/account names what was bought: the web plan's name, the store product's id, beside what it unlocks")
    func namesThePlan() async throws {
        let harness = try CheckoutHarness(extra: ["entitlements": ["premium": ["price_monthly", "price_lifetime", "com.example.yearly"]]])
        try await Self.paidCheckout(harness)
        let browser = CookieBrowser(harness.app)
        _ = try await Self.signInByLink(harness, browser)
        let now = harness.clock.now
        try await harness.app.app.database.write { connection in
            guard let account = try AccountRepository.find(confirmedEmail: "buyer@example.com", on: connection) else {
                throw HarnessError("no account")
            }
            let applied = try PurchaseRepository.apply(
                PurchaseSnapshot(
                    platform: .appStore, externalID: "2000000000000042", productID: "com.example.yearly", status: .active,
                    expiresAt: now.addingTimeInterval(300 * 86400), environment: "Production", observedAt: now),
                on: connection, now: now)
            try PurchaseRepository.link(purchaseID: applied.purchase.id, to: account.id, on: connection, now: now)
        }
        let page = await browser.get("/account")
        let lines = page.text.components(separatedBy: "\n").filter { $0.contains("<p><strong>") }
        #expect(lines.contains { $0.contains("Premium</strong> · Monthly · Web · active") }, "\(lines)")
        #expect(lines.contains { $0.contains("Premium</strong> · com.example.yearly · App Store · active") }, "\(lines)")
    }

    @Test("A link works once: a second browser posting it gets 410 and no cookie")
    func linkWorksOnce() async throws {
        let harness = try CheckoutHarness()
        try await Self.paidCheckout(harness)
        let first = CookieBrowser(harness.app)
        #expect(try await Self.signInByLink(harness, first).status == .ok)
        let link = try #require(try MailReader(directory: harness.app.directory.path + "/mail").link(containing: "/account/sign-in/link?"))
        let token = try #require(link.components(separatedBy: "token=").last)
        let second = CookieBrowser(harness.app)
        let button = await second.get("/account/sign-in/link?token=" + token)
        #expect(button.status.code == 410 && button.text.contains("Get a new sign-in link"))
        let form = await second.get("/account/sign-in")
        let replay = await second.post("/account/sign-in/link", ["csrf": try #require(CookieBrowser.csrf(in: form)), "token": token])
        #expect(replay.status.code == 410)
        #expect(second.cookies[WebCookies.session] == nil)
    }

    @Test("Asking for a link answers the same for an unknown address, which gets its link too; no account confirms it before it is used")
    func sameAnswerForUnknownEmail() async throws {
        let harness = try CheckoutHarness()
        try await Self.paidCheckout(harness)
        let before = try await harness.count("SELECT COUNT(*) FROM mail_outbox")
        let browser = CookieBrowser(harness.app)
        let csrf = try #require(CookieBrowser.csrf(in: await browser.get("/account/sign-in")))
        let unknown = await browser.post("/account/sign-in", ["csrf": csrf, "email": "nobody@example.com"])
        let known = await browser.post("/account/sign-in", ["csrf": csrf, "email": "buyer@example.com"])
        #expect(unknown.status == known.status)
        // The same page but for the address itself (masked, and in the code form's hidden field).
        #expect(
            unknown.text.replacingOccurrences(of: EmailMask.mask("nobody@example.com"), with: "").replacingOccurrences(
                of: "nobody@example.com", with: "")
                == known.text.replacingOccurrences(of: EmailMask.mask("buyer@example.com"), with: "").replacingOccurrences(
                    of: "buyer@example.com", with: ""))
        // Both get their link (API.md Addresses: an account for a new address is made when its
        // link is used), and until then no account confirms the unknown address.
        #expect(try await harness.count("SELECT COUNT(*) FROM mail_outbox") == before + 2, "one link to each address")
        #expect(
            try await harness.count("SELECT COUNT(*) FROM accounts WHERE email = 'nobody@example.com'") == 0,
            "no account confirms it before its link is used")
        let invalid = await browser.post("/account/sign-in", ["csrf": csrf, "email": "not an address"])
        #expect(invalid.status == .badRequest && invalid.text.contains("Enter the email address"))
    }

    @Test("Every form needs its CSRF token: none, another browser's or another session's is 403 and changes nothing")
    func csrfRefusals() async throws {
        let harness = try CheckoutHarness()
        try await Self.paidCheckout(harness)
        let browser = CookieBrowser(harness.app)
        _ = await browser.get("/account/sign-in")
        #expect(await browser.post("/account/sign-in", ["email": "buyer@example.com"]).status == .forbidden)
        let other = CookieBrowser(harness.app)
        let othersToken = try #require(CookieBrowser.csrf(in: await other.get("/account/sign-in")))
        #expect(await browser.post("/account/sign-in", ["csrf": othersToken, "email": "buyer@example.com"]).status == .forbidden)
        #expect(try await harness.count("SELECT COUNT(*) FROM mail_outbox WHERE template = 'login_link'") == 0)

        let page = try await Self.signInByLink(harness, browser)
        let token = try #require(CookieBrowser.csrf(in: page))
        let mailBefore = try await harness.count("SELECT COUNT(*) FROM mail_outbox")
        let forged = await browser.post("/account/resend", ["csrf": othersToken])
        #expect(forged.status == .forbidden && forged.text.contains("reload the page"))
        #expect(await browser.post("/account/delete", ["confirm": "DELETE"]).status == .forbidden)
        #expect(await browser.post("/account/sign-out", [:]).status == .forbidden)
        #expect(try await harness.count("SELECT COUNT(*) FROM mail_outbox") == mailBefore)
        #expect(try await harness.count("SELECT COUNT(*) FROM accounts WHERE deleted_at IS NOT NULL") == 0)
        #expect(await browser.get("/account").status == .ok, "still signed in")

        // A second session of the same account has its own token.
        let second = CookieBrowser(harness.app)
        _ = try await Self.signInByLinkAgain(harness, second)
        #expect(await second.post("/account/resend", ["csrf": token]).status == .forbidden)
    }

    /// A later sign-in for the same address (the throttle allows one sign-in mail per address per resend interval).
    static func signInByLinkAgain(_ harness: CheckoutHarness, _ browser: CookieBrowser) async throws -> HTTPResponse {
        harness.clock.advance(601)
        return try await signInByLink(harness, browser)
    }

    @Test("Password sign-in: the right one signs in and goes to next; a wrong one is 401; a password change signs every browser out")
    func passwordSignIn() async throws {
        let harness = try CheckoutHarness()
        let now = harness.clock.now
        let hash = try await PasswordWork.hash("correct horse battery")
        let accountID = try await harness.app.app.database.write { connection in
            let account = try AccountRepository.create(
                email: "pat@example.com", secrets: harness.app.app.essentials.secrets, on: connection, now: now)
            try AccountRepository.confirmEmail("pat@example.com", accountID: account.id, on: connection, now: now)
            try AccountRepository.setPasswordHash(hash, accountID: account.id, on: connection, now: now)
            return account.id
        }
        let browser = CookieBrowser(harness.app)
        let form = await browser.get("/account/sign-in?next=/gonative/store")
        #expect(form.text.contains(#"name="next" value="/gonative/store""#))
        let csrf = try #require(CookieBrowser.csrf(in: form))
        let wrong = await browser.post(
            "/account/sign-in", ["csrf": csrf, "email": "pat@example.com", "password": "wrong password", "next": "/gonative/store"])
        #expect(wrong.status == .unauthorized && wrong.text.contains("do not match"))
        #expect(browser.cookies[WebCookies.session] == nil)
        let right = await browser.post(
            "/account/sign-in", ["csrf": csrf, "email": "Pat@example.com", "password": "correct horse battery", "next": "/gonative/store"])
        #expect(right.status == .seeOther && right.headers["Location"] == "/gonative/store")
        #expect(await browser.get("/account").status == .ok)
        let elsewhere = await browser.post(
            "/account/sign-in", ["csrf": csrf, "email": "pat@example.com", "password": "correct horse battery", "next": "https://evil.example/"])
        #expect(elsewhere.headers["Location"] == "/account", "next is allow-listed")

        // The password is changed (the emailed set-password link): every session ends.
        let reset = try await harness.app.app.database.write { try AuthTokenRepository.issue(.passwordReset, accountID: accountID, on: $0, now: now) }
        let changed = await AccountFlowTests.form(
            harness, "/auth/password/reset",
            [
                "token": reset, "password": "a new long password", "password_confirmation": "a new long password"
            ])
        #expect(changed.status == .ok)
        #expect(await browser.get("/account").headers["Location"] == "/account/sign-in", "signed out by the password change")
    }

    @Test("Wrong passwords are limited per email: past the limit in a window even the right password is 429")
    func passwordLimit() async throws {
        let harness = try CheckoutHarness()
        let now = harness.clock.now
        let hash = try await PasswordWork.hash("correct horse battery")
        try await harness.app.app.database.write { connection in
            let account = try AccountRepository.create(
                email: "pat@example.com", secrets: harness.app.app.essentials.secrets, on: connection, now: now)
            try AccountRepository.confirmEmail("pat@example.com", accountID: account.id, on: connection, now: now)
            try AccountRepository.setPasswordHash(hash, accountID: account.id, on: connection, now: now)
        }
        let browser = CookieBrowser(harness.app)
        let csrf = try #require(CookieBrowser.csrf(in: await browser.get("/account/sign-in")))
        var statuses: [Int] = []
        for _ in 0..<10 {
            statuses.append(await browser.post("/account/sign-in", ["csrf": csrf, "email": "pat@example.com", "password": "guess"]).status.code)
        }
        #expect(statuses.allSatisfy { $0 == 401 })
        let limited = await browser.post("/account/sign-in", ["csrf": csrf, "email": "pat@example.com", "password": "correct horse battery"])
        #expect(limited.status == .tooManyRequests && limited.headers["Retry-After"] != nil)
    }

    @Test("Manage billing: 303 to the Stripe customer portal of the account's customer, returning to /account")
    func billingPortal() async throws {
        let harness = try CheckoutHarness()
        try await Self.paidCheckout(harness)
        let browser = CookieBrowser(harness.app)
        let page = try await Self.signInByLink(harness, browser)
        let billing = await browser.post("/account/billing", ["csrf": try #require(CookieBrowser.csrf(in: page))])
        #expect(billing.status == .seeOther)
        #expect(
            billing.headers["Location"]?.hasPrefix(FakeStripe.portalBaseURL + "/p/session/bps_") == true, "\(billing.headers["Location"] ?? "none")")
        let portal = try #require(harness.stripe.portalSessions.last)
        #expect(portal.customer == harness.stripe.sessions.first?.customerID)
        #expect(portal.returnURL == "https://pay.example.com/account")

        harness.stripe.failNextRequests(status: 500, count: 3)
        let down = await browser.post("/account/billing", ["csrf": try #require(CookieBrowser.csrf(in: page))])
        #expect(down.status == .badGateway && down.text.contains("try again"), "Stripe down: a page, not a redirect")
    }

    @Test("Email me my code again: a fresh code to the address that bought, then back to the page with a notice")
    func resendCode() async throws {
        let harness = try CheckoutHarness()
        try await Self.paidCheckout(harness)
        let browser = CookieBrowser(harness.app)
        let page = try await Self.signInByLink(harness, browser)
        harness.clock.advance(601)
        let resent = await browser.post("/account/resend", ["csrf": try #require(CookieBrowser.csrf(in: page))])
        #expect(resent.status == .seeOther && resent.headers["Location"] == "/account?done=resent")
        #expect(try await harness.count("SELECT COUNT(*) FROM mail_outbox WHERE template = 'code_resent' AND status = 'pending'") == 1)
        #expect(await browser.get("/account?done=resent").text.contains("a fresh code is on its way"))
        await harness.app.app.workers.outbox.runOnce()
        let messages = try MailReader(directory: harness.app.directory.path + "/mail").messages()
        #expect(messages.last?.contains("https://pay.example.com/manage") == true, "code emails carry the /manage link")
    }

    @Test("Download my data is a JSON attachment for the signed-in account; signed out it is 401")
    func export() async throws {
        let harness = try CheckoutHarness()
        try await Self.paidCheckout(harness)
        let browser = CookieBrowser(harness.app)
        _ = try await Self.signInByLink(harness, browser)
        let download = await browser.get("/account/export")
        #expect(download.status == .ok)
        #expect(download.headers["Content-Disposition"]?.hasPrefix("attachment;") == true)
        #expect((download.jsonObject?["account"] as? [String: Any])?["email"] as? String == "buyer@example.com")
        #expect(await CookieBrowser(harness.app).get("/account/export").status == .unauthorized)
    }

    @Test("Delete my account needs the typed word; then the account is erased, the cookie cleared, and a repeat answers the same")
    func deleteAccount() async throws {
        let harness = try CheckoutHarness()
        try await Self.paidCheckout(harness)
        let browser = CookieBrowser(harness.app)
        let page = try await Self.signInByLink(harness, browser)
        let csrf = try #require(CookieBrowser.csrf(in: page))
        let cookie = try #require(browser.cookies[WebCookies.session])
        let unconfirmed = await browser.post("/account/delete", ["csrf": csrf, "confirm": "delete"])
        #expect(unconfirmed.status == .badRequest && unconfirmed.text.contains("Type DELETE"))
        #expect(try await harness.count("SELECT COUNT(*) FROM accounts WHERE deleted_at IS NOT NULL") == 0)

        let deleted = await browser.post("/account/delete", ["csrf": csrf, "confirm": "DELETE"], headers: ["Accept": "text/html"])
        #expect(deleted.status == .ok && deleted.headers["Content-Type"]?.hasPrefix("text/html") == true)
        #expect(browser.cookies[WebCookies.session] == nil, "the cookie is cleared")
        #expect(try await harness.count("SELECT COUNT(*) FROM accounts WHERE deleted_at IS NOT NULL") == 1)
        let leftovers = try await AccountDeletionTests.everyRow(harness).filter { $0.row.lowercased().contains("buyer@example.com") }
        #expect(leftovers.isEmpty, "tables still holding the email: \(leftovers.map(\.table))")

        browser.setCookies([WebCookies.session: cookie])
        #expect(await browser.get("/account").headers["Location"] == "/account/sign-in")
        let repeated = await browser.post("/account/delete", ["csrf": csrf, "confirm": "DELETE"])
        #expect(
            repeated.status == .ok && repeated.jsonObject?["status"] as? String == "deleted",
            "a repeat (the answer was lost) answers as the first did")
    }

    @Test("Sign out: the cookie is cleared and the old cookie no longer opens the page")
    func signOut() async throws {
        let harness = try CheckoutHarness()
        try await Self.paidCheckout(harness)
        let browser = CookieBrowser(harness.app)
        let page = try await Self.signInByLink(harness, browser)
        let cookie = try #require(browser.cookies[WebCookies.session])
        let out = await browser.post("/account/sign-out", ["csrf": try #require(CookieBrowser.csrf(in: page))])
        #expect(out.status == .seeOther && out.headers["Location"] == "/account/sign-in?signed_out=1")
        #expect(browser.cookies[WebCookies.session] == nil)
        #expect(await browser.get("/account/sign-in?signed_out=1").text.contains("You are signed out"))
        browser.setCookies([WebCookies.session: cookie])
        #expect(await browser.get("/account").headers["Location"] == "/account/sign-in")
    }

    @Test("The session slides: used within 30 days it stays (the cookie is sent again), idle for 30 days it ends")
    func slidingSession() async throws {
        let harness = try CheckoutHarness()
        try await Self.paidCheckout(harness)
        let browser = CookieBrowser(harness.app)
        _ = try await Self.signInByLink(harness, browser)
        let firstLine = try #require(browser.setCookieLine(WebCookies.session))
        harness.clock.advance(20 * 86400)
        let later = await browser.get("/account")
        #expect(later.status == .ok)
        #expect(
            later.headers.values(for: "Set-Cookie").contains { $0.hasPrefix(WebCookies.session + "=") }, "the moved expiry is sent to the browser")
        #expect(browser.setCookieLine(WebCookies.session) != nil && firstLine.contains("Max-Age=2592000"))
        harness.clock.advance(20 * 86400)
        #expect(await browser.get("/account").status == .ok, "40 days after signing in, used 20 days ago")
        harness.clock.advance(30 * 86400 + 1)
        #expect(await browser.get("/account").headers["Location"] == "/account/sign-in", "idle for 30 days")
    }
}
