import Domain
import Foundation
import HTTPCore
import TestSupport
import Testing

@testable import Web
@testable import App

/// The web-view sign-in by code in a real headless Chromium on a phone: the browser holds only the
/// visitor cookie the sign-in page gave it, posts the sign-in code form as the buyer does (the
/// mailed code typed in), and ends on the GoNative store page signed in, in the same browser.
@Suite("Sign-in by code in a real headless Chromium", .serialized)
struct SignInCodeBrowserTests {
    @Test("On a phone: the mailed code typed on the page signs this browser in and lands on /gonative/store", .timeLimit(.minutes(5)))
    func signInByCodeOnAPhone() async throws {
        try #require(HeadlessChromium.executable != nil, "chromium is not installed: run scripts/install-test-tools")
        let harness = try CheckoutHarness(extra: ["products": ["com.example.monthly", "com.example.yearly"]])
        try await WebAccountTests.paidCheckout(harness)
        // The sign-in page and "Check your email" as the web view got them, before the server starts.
        let webView = CookieBrowser(harness.app)
        let form = await webView.get("/account/sign-in?next=/gonative/store")
        let sent = await webView.post(
            "/account/sign-in", ["csrf": try #require(CookieBrowser.csrf(in: form)), "email": "buyer@example.com", "next": "/gonative/store"])
        let csrf = try #require(CookieBrowser.csrf(in: sent))
        #expect(sent.text.contains(#"action="/account/sign-in/code""#))
        let visitor = try #require(webView.cookies[WebCookies.visitor])
        await harness.app.app.workers.outbox.runOnce()
        let code = try #require(try MailReader(directory: harness.app.directory.path + "/mail").newestSignInCode())

        try harness.app.app.start()
        let base = "http://127.0.0.1:\(harness.app.app.server.port)"
        let scratch = try TemporaryDirectory()
        // Chromium gets the visitor cookie (cookies are per host, not per port), then the buyer's
        // typing: the code form's fields, posted to the service.
        let fields = ["csrf": csrf, "email": "buyer@example.com", "code": code, "next": "/gonative/store"]
        let inputs = fields.sorted { $0.key < $1.key }.map { #"<input type="hidden" name="\#($0.key)" value="\#($0.value)">"# }.joined()
        let helper = try FakeHTTPServer { request in
            switch request.path {
            case "/seed":
                var response = HTTPResponse.redirect(to: "/type", status: .found)
                response.headers.add("Set-Cookie", "\(WebCookies.visitor)=\(visitor); Path=/; HttpOnly; SameSite=Lax")
                return response
            case "/type":
                return .html(
                    Array(
                        #"""
                        <!doctype html><html lang="en"><head><title>typing</title></head><body>
                        <form id="code" method="post" action="\#(base)/account/sign-in/code">\#(inputs)</form>
                        <script src="/type.js"></script></body></html>
                        """#.utf8))
            default:
                return HTTPResponse(status: .ok, contentType: "text/javascript", body: #"document.getElementById("code").submit();"#)
            }
        }
        let result = try await HeadlessChromium.run(
            BrowserLoad(url: helper.baseURL + "/seed", device: .iPhone, javaScript: true, dark: false, output: .dom), scratch: scratch.path)
        await helper.stop()
        await harness.app.app.shutdown()

        #expect(result.status == 0, "the page did not load: \(result.stderr.suffix(2000))")
        let hrefs = Set(DOMInspection(result.dom).all("a").compactMap { $0.attributes["href"] })
        #expect(hrefs.contains("gonative://purchase/com.example.monthly"), "not on the signed-in store page: \(result.dom.prefix(1500))")
        #expect(hrefs.contains("gonative://iap/restorePurchases"))
    }
}
