import Domain
import Foundation
import HTTPCore
import TestSupport
import Testing

@testable import App
@testable import Web

/// The console as a support person uses it, in one headless Chromium profile kept from page to
/// page (its cookies go on, as in a person's browser): the invitation arrives at a real SMTP
/// server (aiosmtpd), the invitation page is opened, the authenticator is enrolled with a code
/// the test computes, then sign-in, search by email, the buyer's page, "Email a fresh code" (the
/// mail arrives at the SMTP server) and the audit log that shows it. Forms are typed by a helper
/// page on another port (same site), as the person's keyboard would. Screenshots of the
/// attention page, the buyer's page and the audit log go to docs/screenshots/.
@Suite("The operators' console in a real headless Chromium", .serialized)
struct ConsoleBrowserTests {
    static let screenshots = PackagePaths.root + "/docs/screenshots"

    @Test("Invitation mail → enrol → sign in → search → buyer → resend the code → the mail arrives → the audit log shows it", .timeLimit(.minutes(10)))
    func supportFlow() async throws {
        try #require(HeadlessChromium.executable != nil, "chromium is not installed: run scripts/install-test-tools")
        let sink = try await SMTPSink()
        defer { sink.stop() }
        let console = try ConsoleHarness(extra: [
            "base_url": "http://localhost:8080",
            "mail": ["transport": "smtp", "from": "Example <no-reply@example.com>", "smtp": ["host": "127.0.0.1", "port": sink.port, "security": "none"]],
        ])
        try await WebAccountTests.paidCheckout(console.harness, email: "buyer@example.com")
        try console.app.app.start()
        let base = "http://127.0.0.1:\(console.app.app.server.port)"
        let scratch = try TemporaryDirectory()
        let profile = scratch.path + "/profile"
        func open(_ url: String) async throws -> String {
            let result = try await HeadlessChromium.run(
                BrowserLoad(url: url, device: .desktop, javaScript: true, dark: false, output: .dom), scratch: scratch.path, profile: profile)
            #expect(result.status == 0, "\(result.stderr.suffix(1500))")
            #expect(result.consoleMessages.isEmpty, "\(url): \(result.consoleMessages)")
            return result.dom
        }
        // The helper types a form: a page on another port whose script posts it to the service.
        let forms = FormTyper()
        let helper = try FakeHTTPServer { request in await forms.page(request) }
        func submit(_ action: String, _ fields: [String: String]) async throws -> String {
            await forms.set(action: base + action, fields: fields)
            return try await open(helper.baseURL + "/type")
        }

        // 1. The invitation, mailed as `tollgate operator add` does, arrives at the SMTP server.
        _ = try await console.app.app.services.console.operators.add(
            email: "sue@example.com", role: .support, by: AuditActor(name: "cli:test", role: .admin), now: console.clock.now)
        let invitation = try await sink.message(containing: "/console/invite/")
        let link = try #require(invitation.range(of: #"http://localhost:8080/console/invite/[A-Za-z0-9_-]+"#, options: .regularExpression))
        let invitePath = String(invitation[link].dropFirst("http://localhost:8080".count))

        // 2. The invitation page: the QR code and the secret; enrol with the app's current code.
        let invitePage = try await open(base + invitePath)
        #expect(invitePage.contains("<svg"))
        let secretRange = try #require(invitePage.range(of: #"<code class="secret">[A-Z2-7 ]+</code>"#, options: .regularExpression))
        let secret = try #require(Base32.decode(String(invitePage[secretRange].dropFirst(21).dropLast(7))))
        let inviteCSRF = try #require(Self.csrf(in: invitePage))
        let enrolled = try await submit(invitePath, ["csrf": inviteCSRF, "password": ConsoleHarness.password, "otp": try console.code(secret)])
        #expect(enrolled.contains(#"action="/console/sign-in""#), "not on the sign-in page: \(enrolled.prefix(800))")
        console.clock.advance(30)

        // 3. Sign in with email, password and the next code.
        let signInCSRF = try #require(Self.csrf(in: enrolled))
        let home = try await submit(
            "/console/sign-in", ["csrf": signInCSRF, "email": "sue@example.com", "password": ConsoleHarness.password, "otp": try console.code(secret)])
        #expect(home.contains("sue@example.com (support)"), "not signed in: \(home.prefix(800))")

        // 4. Search by the email on the ticket, 5. open the buyer.
        let results = try await open(base + "/console/search?q=Buyer%40Example.com")
        let buyerLink = try #require(results.range(of: #"/console/accounts/[A-Za-z0-9_%-]+"#, options: .regularExpression))
        let buyerPath = String(results[buyerLink])
        let buyer = try await open(base + buyerPath)
        #expect(buyer.contains("buyer@example.com"))
        let purchaseAction = try #require(buyer.range(of: #"/console/purchases/[A-Za-z0-9_]+/resend-code"#, options: .regularExpression))

        // 6. Resend the code with a reason; the page says so and the mail arrives.
        let resent = try await submit(String(buyer[purchaseAction]), [
            "csrf": try #require(Self.csrf(in: buyer)), "reason": "Ticket 1234: paid, cannot get in", "back": String(buyerPath.split(separator: "/").last ?? ""),
        ])
        #expect(resent.contains(#"class="notice""#), "no notice: \(resent.prefix(800))")
        // The checkout's own code mail went out at start; the resent one is the second to the buyer.
        let toBuyer = try await sink.messages(containing: "buyer@example.com", atLeast: 2)
        #expect(toBuyer.allSatisfy { $0.contains("/redeem/") }, "\(toBuyer.map { $0.prefix(400) })")

        // 7. The audit log shows who did it, why and from where.
        let audit = try await open(base + "/console/audit")
        #expect(audit.contains("code.resend") && audit.contains("Ticket 1234: paid, cannot get in") && audit.contains("sue@example.com"))

        // Screenshots of the three pages, signed in, for docs/screenshots/.
        try FileManager.default.createDirectory(atPath: Self.screenshots, withIntermediateDirectories: true)
        for (path, name) in [("/console/", "console-attention"), (buyerPath, "console-buyer"), ("/console/audit", "console-audit")] {
            let shot = Self.screenshots + "/\(name).png"
            let result = try await HeadlessChromium.run(
                BrowserLoad(url: base + path, device: .desktop, javaScript: false, dark: false, output: .screenshot(path: shot)),
                scratch: scratch.path, profile: profile)
            #expect(result.status == 0 && FileManager.default.fileExists(atPath: shot), "\(name): \(result.stderr.suffix(800))")
        }
        await helper.stop()
        await console.app.app.shutdown()
    }

    /// The first form token in a DOM.
    static func csrf(in dom: String) -> String? {
        guard let range = dom.range(of: #"name="csrf" value="[^"]+""#, options: .regularExpression) else { return nil }
        return String(dom[range].dropFirst(#"name="csrf" value=""#.count).dropLast())
    }
}

/// The form the helper page types next: its action and fields, and the page and script that post it.
actor FormTyper {
    private var action = ""
    private var fields: [String: String] = [:]

    func set(action: String, fields: [String: String]) {
        self.action = action
        self.fields = fields
    }

    func page(_ request: HTTPRequest) -> HTTPResponse {
        guard request.path == "/type" else {
            return HTTPResponse(status: .ok, contentType: "text/javascript", body: #"document.getElementById("form").submit();"#)
        }
        let inputs = fields.sorted { $0.key < $1.key }.map { field in
            #"<input type="hidden" name="\#(Self.escape(field.key))" value="\#(Self.escape(field.value))">"#
        }.joined()
        return .html(Array(#"""
            <!doctype html><html lang="en"><head><title>typing</title></head><body>
            <form id="form" method="post" action="\#(Self.escape(action))">\#(inputs)</form>
            <script src="/type.js"></script></body></html>
            """#.utf8))
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;").replacingOccurrences(of: "<", with: "&lt;")
    }
}
