import Foundation
import HTTPCore
import HTTPRouting
import Integrations
import Testing

@testable import Web

/// The buyer's language end to end (API.md "The buyer's language"): chosen once at
/// `/checkout/start`, kept with the checkout and the purchase, and used by the pages and mails
/// that follow, including a resend long after. Arabic is a test catalog (right to left).
@Suite("The buyer's language")
struct BuyerLanguageFlowTests {
    static func harness() throws -> CheckoutHarness {
        try CheckoutHarness(extra: ["locales": ["dir": PackagePaths.testLocales]])
    }

    /// The delivered messages, after the outbox worker sent what is queued.
    static func messages(_ harness: CheckoutHarness) async throws -> [String] {
        await harness.app.app.workers.outbox.runOnce()
        return try MailReader(directory: harness.app.directory.path + "/mail").messages()
    }

    static func locale(_ harness: CheckoutHarness, _ sql: String) async throws -> String? {
        try await harness.app.app.database.read { connection in try connection.queryOne(sql)?.optionalString("locale") }
    }

    @Test("?locale= is kept with the checkout and the purchase; Stripe gets what it has; the success page and code mail speak it, right to left")
    func keptFromCheckout() async throws {
        let harness = try Self.harness()
        let id = try await harness.startCheckout("plan=monthly&app_user_id=user-1&email=buyer%40example.com&locale=ar_EG")
        let session = try #require(harness.stripe.session(id: id))
        #expect(session.parameters["locale"]?.string == "auto", "Stripe's page has no Arabic: it follows the browser")
        #expect(try await Self.locale(harness, "SELECT locale FROM checkouts") == "ar")
        try harness.pay(id)
        let page = await harness.successPage(id)
        #expect(page.status == .ok)
        #expect(page.text.contains(#"<html lang="ar" dir="rtl">"#))
        #expect(page.text.contains("شكرًا لك!"))
        #expect(try await Self.locale(harness, "SELECT locale FROM purchases") == "ar")
        let mail = try #require(try await Self.messages(harness).first)
        #expect(mail.contains("شكرًا على شرائك"), "\(mail.prefix(400))")
        #expect(mail.contains(#"lang="ar" dir="rtl""#))
        #expect(mail.contains("/redeem/") && mail.contains("?locale=ar"))
    }

    @Test("Without ?locale= the browser's Accept-Language decides; an unknown language falls back to the default")
    func acceptLanguage() async throws {
        let harness = try Self.harness()
        let arabic = await harness.app.send(.get, "/checkout/start?plan=monthly", headers: ["Accept-Language": "it-CH, ar;q=0.9, en;q=0.5"])
        #expect(arabic.status == .seeOther)
        #expect(try await Self.locale(harness, "SELECT locale FROM checkouts") == "ar")
        let home = await harness.app.send(.get, "/", headers: ["Accept-Language": "ar"])
        #expect(home.text.contains(#"<html lang="ar" dir="rtl">"#))
        let english = await harness.app.send(.get, "/", headers: ["Accept-Language": "ko"])
        #expect(english.text.contains(#"<html lang="en" dir="ltr">"#) && english.text.contains("Bought on the web?"))
        let error = await harness.app.send(.get, "/no-such-page", headers: ["Accept-Language": "ar"])
        #expect(error.status == .notFound && error.text.contains("لم نعثر على هذه الصفحة"))
    }

    @Test("A malformed locale is a 400 page with its code, and no checkout starts")
    func malformed() async throws {
        let harness = try Self.harness()
        let response = await harness.app.send(.get, "/checkout/start?plan=monthly&locale=%3Cscript%3E")
        #expect(response.status == .badRequest && response.text.contains("<code>bad_request</code>"))
        #expect(harness.stripe.sessions.isEmpty)
    }

    @Test("A resend months later is written in the purchase's language, whatever the browser asking for it speaks")
    func resendMonthsLater() async throws {
        let harness = try Self.harness()
        let id = try await harness.startCheckout("plan=lifetime&app_user_id=user-1&email=buyer%40example.com&locale=ar")
        try harness.pay(id)
        #expect(await harness.successPage(id).status == .ok)
        _ = try await Self.messages(harness)
        harness.clock.advance(120 * 86_400)
        let form = await harness.app.send(
            .post, "/redeem/resend", headers: ["Content-Type": "application/x-www-form-urlencoded", "Accept-Language": "en"],
            body: "email=buyer%40example.com&case=expired")
        #expect(form.status == .ok && form.text.contains(#"lang="en""#), "the form's own answer follows the browser")
        let messages = try await Self.messages(harness)
        let resent = try #require(messages.last)
        #expect(resent.contains("طلبت منا إرسال رمز"), "\(resent.prefix(600))")
        let link = try #require(try MailReader(directory: harness.app.directory.path + "/mail").link(containing: "/redeem/"))
        let path = String(link.dropFirst("https://pay.example.com".count))
        let landing = await harness.app.send(.get, path, headers: ["Accept-Language": "en"])
        #expect(landing.text.contains(#"<html lang="ar" dir="rtl">"#), "the mail's link carries the purchase's language")
    }
}

extension BuyerLanguageFlowTests {
    @Test(
        "A shipped language goes to Stripe as itself, and the pages after checkout speak it",
        arguments: [
            ("de", "Vielen Dank!"), ("fr", "Merci !"), ("es", "¡Gracias!"), ("ja", "ご購入ありがとうございます")
        ])
    func shipped(language: String, thanks: String) async throws {
        let harness = try CheckoutHarness()
        let id = try await harness.startCheckout("plan=monthly&app_user_id=user-1&email=buyer%40example.com&locale=\(language)")
        #expect(harness.stripe.session(id: id)?.parameters["locale"]?.string == language)
        try harness.pay(id)
        let page = await harness.successPage(id)
        #expect(page.status == .ok)
        #expect(page.text.contains(#"<html lang="\#(language)" dir="ltr">"#))
        #expect(page.text.replacingOccurrences(of: "\u{202F}", with: " ").contains(thanks), "\(page.text.prefix(1200))")
    }
}

extension BuyerLanguageFlowTests {
    @Test("A sign-in mail's link carries ?locale= (API.md's name) and opens in the mail's language; /manage passes it on")
    func signInLinkCarriesTheLocale() async throws {
        let harness = try Self.harness()
        let id = try await harness.startCheckout("plan=lifetime&app_user_id=user-1&email=buyer%40example.com&locale=ar")
        try harness.pay(id)
        #expect(await harness.successPage(id).status == .ok)
        let english: HTTPHeaders = ["Accept-Language": "en"]
        let browser = CookieBrowser(harness.app)
        let form = await browser.get("/account/sign-in", headers: english)
        let sent = await browser.post(
            "/account/sign-in", ["csrf": try #require(CookieBrowser.csrf(in: form)), "email": "buyer@example.com"], headers: english)
        #expect(sent.status == .ok)
        _ = try await Self.messages(harness)
        let link = try #require(try MailReader(directory: harness.app.directory.path + "/mail").link(containing: "/account/sign-in/link?"))
        #expect(link.hasPrefix("https://pay.example.com/account/sign-in/link?locale=ar&token="), "\(link)")
        let page = await browser.get(String(link.dropFirst("https://pay.example.com".count)), headers: english)
        #expect(page.status == .ok && page.text.contains(#"<html lang="ar" dir="rtl">"#), "\(page.text.prefix(300))")
        let manage = await harness.app.send(.get, "/manage?locale=ar", headers: english)
        #expect(manage.status == .seeOther && manage.headers["Location"] == "/account/sign-in?locale=ar")
        let unknown = await harness.app.send(.get, "/manage?locale=%3Cx%3E", headers: english)
        #expect(unknown.headers["Location"] == "/account/sign-in", "a locale no catalog serves is not passed on")
    }
}
