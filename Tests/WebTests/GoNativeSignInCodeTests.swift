import Domain
import Foundation
import HTTPCore
import Testing
import TestSupport

@testable import App
@testable import Web

/// A buyer inside a GoNative app's web view signs in where the postUrl is called: the sign-in mail
/// opens links in the phone's browser, so its 6-digit code is typed on the page the web view shows
/// (`POST /account/sign-in/code`), and the web view's own cookie then carries the receipt.
@Suite("GoNative: signing in inside the web view by the mailed code")
struct GoNativeSignInCodeTests {
    /// GoNative's web view on an iPhone (its user agent carries `gonative`).
    static let webViewAgent = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 gonative"

    /// The code in the newest sign-in mail.
    static func mailedCode(_ harness: StoresHarness) async throws -> String {
        await harness.app.app.workers.outbox.runOnce()
        return try #require(try MailReader(directory: harness.app.directory.path + "/mail").newestSignInCode())
    }

    /// From the store page (signed out) to "Check your email" with the code form, as the web view goes.
    static func askForMail(_ harness: StoresHarness, _ webView: CookieBrowser, email: String) async throws -> HTTPResponse {
        let headers: HTTPHeaders = ["User-Agent": webViewAgent]
        let store = await webView.get("/gonative/store", headers: headers)
        let signInPath = try #require(store.headers["Location"])
        #expect(signInPath == "/account/sign-in?next=/gonative/store")
        let form = await webView.get(signInPath, headers: headers)
        let sent = await webView.post(
            "/account/sign-in", ["csrf": try #require(CookieBrowser.csrf(in: form)), "email": email, "next": "/gonative/store"], headers: headers)
        #expect(sent.status == .ok && sent.text.contains(#"action="/account/sign-in/code""#), "\(sent.status) \(sent.text.prefix(400))")
        return sent
    }

    @Test(
        "Signed out at the store page: ask for the mail, type its code in the web view, land on the store signed in; the postUrl then links the receipt"
    )
    func signInByCodeThenReceipt() async throws {
        let harness = try await StoresHarness()
        defer { Task { await harness.stop() } }
        let services = harness.app.app.essentials
        let now = harness.clock.now
        // Issue 40: an address opens the account that confirmed it (an unconfirmed one opens nothing).
        let accountID = try await services.database.write { connection in
            let account = try AccountRepository.create(email: "buyer@example.com", secrets: services.secrets, on: connection, now: now)
            try AccountRepository.confirmEmail("buyer@example.com", accountID: account.id, on: connection, now: now)
            return account.id
        }
        let webView = CookieBrowser(harness.app)
        let sent = try await Self.askForMail(harness, webView, email: "buyer@example.com")
        let code = try await Self.mailedCode(harness)
        let signedIn = await webView.post(
            "/account/sign-in/code",
            ["csrf": try #require(CookieBrowser.csrf(in: sent)), "email": "buyer@example.com", "code": code, "next": "/gonative/store"],
            headers: ["User-Agent": Self.webViewAgent])
        #expect(signedIn.status == .seeOther && signedIn.headers["Location"] == "/gonative/store", "\(signedIn.status) \(signedIn.text.prefix(300))")
        #expect(webView.cookies[WebCookies.session] != nil, "the web view itself holds the session")
        #expect(await webView.get("/gonative/store").status == .ok)

        harness.apple.addReceipt(
            "MIIGNCODE", environment: .sandbox,
            answer: .valid(
                bundleID: StoresHarness.bundleID, environment: "Sandbox",
                purchases: [.init(originalTransactionID: "4000000000000077", expiresDate: harness.clock.now.addingTimeInterval(86400))],
                requestDate: harness.clock.now))
        // GoNative's IAP plug-in posts the receipt to the postUrl with the web view's cookies.
        let receipt = await webView.send(
            .post, "/gonative/receipt", headers: ["Content-Type": "application/json"], body: #"{"receipt-data":"MIIGNCODE"}"#)
        #expect(receipt.jsonObject?["success"] as? Bool == true, "\(receipt.text)")
        #expect(try await harness.purchase(.appStore, "4000000000000077")?.accountID == accountID)
    }

    @Test(
        "The code form needs its CSRF token; a wrong code says how many tries are left; after 5 the right code is refused and a new mail is asked for"
    )
    func tries() async throws {
        let harness = try await StoresHarness()
        defer { Task { await harness.stop() } }
        let services = harness.app.app.essentials
        let now = harness.clock.now
        _ = try await services.database.write { connection in
            let account = try AccountRepository.create(email: "buyer@example.com", secrets: services.secrets, on: connection, now: now)
            try AccountRepository.confirmEmail("buyer@example.com", accountID: account.id, on: connection, now: now)
        }
        let webView = CookieBrowser(harness.app)
        let sent = try await Self.askForMail(harness, webView, email: "buyer@example.com")
        let code = try await Self.mailedCode(harness)
        let csrf = try #require(CookieBrowser.csrf(in: sent))
        let wrong = String(format: "%06d", (Int(code)! + 1) % 1_000_000)
        let noToken = await webView.post("/account/sign-in/code", ["email": "buyer@example.com", "code": code])
        #expect(noToken.status == .forbidden)
        let first = await webView.post(
            "/account/sign-in/code", ["csrf": csrf, "email": "buyer@example.com", "code": wrong, "next": "/gonative/store"])
        #expect(first.status == .unauthorized && first.text.contains("4 more tries"), "\(first.text.prefix(600))")
        #expect(first.text.contains(#"action="/account/sign-in/code""#), "the code form again")
        for _ in 2...5 {
            _ = await webView.post("/account/sign-in/code", ["csrf": csrf, "email": "buyer@example.com", "code": wrong])
        }
        let right = await webView.post("/account/sign-in/code", ["csrf": csrf, "email": "buyer@example.com", "code": code])
        #expect(right.status == .unauthorized && right.text.contains("Ask for a new email"))
        #expect(webView.cookies[WebCookies.session] == nil)
    }
}
