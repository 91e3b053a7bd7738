import Domain
import Foundation
import TestSupport
import Testing

@testable import App
@testable import Web

/// The console as a support person uses it, in one tab of headless Chromium whose cookies go on
/// from page to page, as in a person's browser: the invitation arrives at a real SMTP server
/// (aiosmtpd), the invitation page is opened, the authenticator is enrolled with a code the test
/// computes, then sign-in, search by email, the buyer's page, "Email a fresh code" (the mail
/// arrives at the SMTP server) and the audit log that shows it. Every field is typed and every
/// button clicked over the DevTools protocol (`BrowserSession`), as the person's keyboard and
/// mouse would. Screenshots of the attention page, the buyer's page and the audit log go to
/// docs/screenshots/ with `TOLLGATE_SCREENSHOTS=1`.
@Suite("The operators' console in a real headless Chromium", .serialized)
struct ConsoleBrowserTests {
    static let screenshots = PackagePaths.root + "/docs/screenshots"

    @Test(
        "Invitation mail → enrol → sign in → search → buyer → resend the code → the mail arrives → the audit log shows it", .timeLimit(.minutes(10)))
    func supportFlow() async throws {
        try #require(HeadlessChromium.executable != nil, "chromium is not installed: run scripts/install-test-tools")
        let sink = try await SMTPSink()
        defer { sink.stop() }
        let console = try ConsoleHarness(extra: [
            "base_url": "http://localhost:8080",
            "mail": [
                "transport": "smtp", "from": "Example <no-reply@example.com>", "smtp": ["host": "127.0.0.1", "port": sink.port, "security": "none"]
            ]
        ])
        try await WebAccountTests.paidCheckout(console.harness, email: "buyer@example.com")
        try console.app.app.start()
        let base = "http://127.0.0.1:\(console.app.app.server.port)"
        // One tab of the shared browser, its cookies kept from page to page as in a person's browser.
        let tab = try await BrowserSession.open(device: .desktop)
        func page(_ what: String) async throws -> String {
            let dom = try await tab.dom()
            #expect(tab.messages.isEmpty, "\(what): \(tab.messages)")
            return dom
        }

        // 1. The invitation, mailed as `tollgate operator add` does, arrives at the SMTP server.
        _ = try await console.app.app.useCases.consoleOperators.add(
            email: "sue@example.com", role: .support, by: AuditActor(name: "cli:test", role: .admin), now: console.clock.now)
        let invitation = try await sink.message(containing: "/console/invite/")
        let link = try #require(invitation.range(of: #"http://localhost:8080/console/invite/[A-Za-z0-9_-]+"#, options: .regularExpression))
        let invitePath = String(invitation[link].dropFirst("http://localhost:8080".count))

        // 2. The invitation page: the QR code and the secret; the person types a password and the
        // authenticator's current code, and submits.
        try await tab.navigate(base + invitePath)
        let invitePage = try await page("the invitation")
        #expect(invitePage.contains("<svg"))
        let secretRange = try #require(invitePage.range(of: #"<code class="secret">[A-Z2-7 ]+</code>"#, options: .regularExpression))
        let secret = try #require(Base32.decode(String(invitePage[secretRange].dropFirst(21).dropLast(7))))
        try await tab.fill("#password", ConsoleHarness.password)
        try await tab.fill("#otp", try console.code(secret))
        try await tab.click("form button[type=submit]")
        let enrolled = try await page("after enrolling")
        #expect(enrolled.contains(#"action="/console/sign-in""#), "not on the sign-in page: \(enrolled.prefix(800))")
        console.clock.advance(30)

        // 3. Sign in with email, password and the next code.
        try await tab.fill("#email", "sue@example.com")
        try await tab.fill("#password", ConsoleHarness.password)
        try await tab.fill("#otp", try console.code(secret))
        try await tab.click("form button[type=submit]")
        let home = try await page("the attention page")
        #expect(home.contains("sue@example.com (support)"), "not signed in: \(home.prefix(800))")
        #expect(try await tab.cookies()["tollgate_console"] != nil, "no console cookie")

        // 4. Search by the email on the ticket (typed as the buyer wrote it), 5. open the buyer.
        try await tab.fill("#q", "Buyer@Example.com")
        try await tab.click("form:has(#q) button[type=submit]")
        let results = try await page("the search results")
        let buyerLink = try #require(results.range(of: #"/console/accounts/[A-Za-z0-9_%-]+"#, options: .regularExpression))
        let buyerPath = String(results[buyerLink])
        try await tab.click("a[href='\(buyerPath)']")
        let buyer = try await page("the buyer's page")
        #expect(buyer.contains("buyer@example.com"))
        #expect(buyer.contains("/resend-code"), "no resend action on the buyer's page")

        // 6. Resend the code with a reason; the page says so and the mail arrives.
        try await tab.fill("form.resend input[name=reason]", "Ticket 1234: paid, cannot get in")
        try await tab.click("form.resend button[type=submit]")
        let resent = try await page("after the resend")
        #expect(resent.contains(#"class="notice""#), "no notice: \(resent.prefix(800))")
        // The checkout's own code mail went out at start; the resent one is the second to the buyer.
        let toBuyer = try await sink.messages(containing: "buyer@example.com", atLeast: 2)
        #expect(toBuyer.allSatisfy { $0.contains("/redeem/") }, "\(toBuyer.map { $0.prefix(400) })")

        // 7. The audit log shows who did it, why and from where.
        try await tab.navigate(base + "/console/audit")
        let audit = try await page("the audit log")
        #expect(audit.contains("code.resend") && audit.contains("Ticket 1234: paid, cannot get in") && audit.contains("sue@example.com"))

        // Screenshots of the three pages, signed in (written to docs/screenshots/ with TOLLGATE_SCREENSHOTS=1).
        for (path, name) in [("/console/", "console-attention"), (buyerPath, "console-buyer"), ("/console/audit", "console-audit")] {
            try await tab.navigate(base + path)
            let png = try await tab.screenshot()
            #expect(png.count > 10_000, "\(name): a \(png.count)-byte screenshot")
            if HeadlessChromium.screenshotsWanted {
                try FileManager.default.createDirectory(atPath: Self.screenshots, withIntermediateDirectories: true)
                try Data(png).write(to: URL(fileURLWithPath: Self.screenshots + "/\(name).png"))
            }
        }
        await tab.close()
        await console.app.app.shutdown()
    }

    /// The first form token in a DOM.
    static func csrf(in dom: String) -> String? {
        guard let range = dom.range(of: #"name="csrf" value="[^"]+""#, options: .regularExpression) else { return nil }
        return String(dom[range].dropFirst(#"name="csrf" value=""#.count).dropLast())
    }
}
