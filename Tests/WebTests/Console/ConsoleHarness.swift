import Domain
import Foundation
import HTTPCore
import Testing
import UseCases

@testable import App
@testable import Web

/// A checkout harness with the console: operators invited through the real use case, enrolled
/// through the invitation page as a person does (the secret read off the page, the code computed
/// as an authenticator app does), and signed in through the sign-in form.
struct ConsoleHarness {
    let harness: CheckoutHarness
    var app: TestApp { harness.app }
    var clock: TestClock { harness.clock }

    init(extra: [String: Any] = [:]) throws { harness = try CheckoutHarness(extra: extra) }

    static let password = "correct horse battery"

    /// Invites `email` as `role` (as `tollgate operator add` does); the invitation's path.
    func invite(_ email: String, _ role: OperatorRole) async throws -> String {
        let invited = try await app.app.useCases.consoleOperators.add(
            email: email, role: role, by: AuditActor(name: "cli:test", role: .admin), now: clock.now)
        return String(invited.link.dropFirst("https://pay.example.com".count))
    }

    /// The base32 secret an invitation page shows.
    static func secret(in page: HTTPResponse) throws -> [UInt8] {
        let range = try #require(page.text.range(of: #"<code class="secret">[A-Z2-7 ]+</code>"#, options: .regularExpression))
        let text = page.text[range].dropFirst(#"<code class="secret">"#.count).dropLast("</code>".count)
        return try #require(Base32.decode(String(text)))
    }

    /// The code the authenticator shows now.
    func code(_ secret: [UInt8]) throws -> String { try TOTP.code(secret: secret, step: TOTP.step(at: clock.now)) }

    /// Invites and enrols `email`; the authenticator's secret. The clock moves to the next step.
    func enrolled(_ email: String, _ role: OperatorRole) async throws -> [UInt8] {
        let path = try await invite(email, role)
        let browser = CookieBrowser(app)
        let page = await browser.get(path)
        #expect(page.status == .ok, "\(page.status) \(page.text.prefix(300))")
        let secret = try Self.secret(in: page)
        let done = await browser.post(path, ["csrf": try #require(CookieBrowser.csrf(in: page)), "password": Self.password, "otp": try code(secret)])
        #expect(done.status == .seeOther && done.headers["Location"] == "/console/sign-in?enrolled=1", "\(done.status) \(done.text.prefix(300))")
        clock.advance(30)
        return secret
    }

    /// A browser signed in as `email`.
    func signedIn(_ email: String, _ secret: [UInt8]) async throws -> CookieBrowser {
        let browser = CookieBrowser(app)
        let form = await browser.get("/console/sign-in")
        let signedIn = await browser.post(
            "/console/sign-in",
            ["csrf": try #require(CookieBrowser.csrf(in: form)), "email": email, "password": Self.password, "otp": try code(secret)])
        #expect(signedIn.status == .seeOther && signedIn.headers["Location"] == "/console/", "\(signedIn.status) \(signedIn.text.prefix(300))")
        clock.advance(30)
        return browser
    }

    /// A paid web purchase (no redemption yet) of `email`; its id.
    func paidPurchase(email: String = "buyer@example.com") async throws -> String {
        try await WebAccountTests.paidCheckout(harness, email: email)
        let purchases = try await app.app.useCases.operatorActions.purchases(email: email)
        return try #require(purchases.last?.id)
    }

    /// A web buyer's account: the purchase paid, then the buyer signed in by the mailed link (a
    /// paid checkout alone makes no account that an address opens: "Who may act for an account").
    func buyerAccount(email: String = "buyer@example.com") async throws -> String {
        _ = try await paidPurchase(email: email)
        _ = try await WebAccountTests.signInByLink(harness, CookieBrowser(harness.app), email: email)
        return try #require(try await app.app.useCases.operatorActions.accounts(email: email).first?.account.id)
    }

    func audit() async throws -> [AuditLog.Entry] { try await app.app.useCases.operatorActions.audit(limit: 50) }

    func mailCount(_ template: String) async throws -> Int {
        try await app.app.useCases.outbox.messages(status: nil, limit: 1000).filter { $0.template == template }.count
    }
}
