import Domain
import Foundation
import HTTPCore
import TestSupport
import Testing

@testable import App
@testable import Web

/// The reminders' unsubscribe page in a real headless Chromium with JavaScript switched off: the
/// page a mail's link opens is a plain form (no script needed), and posting that very form, as the
/// button does, stops the reminders and shows the done page.
@Suite("Unsubscribe page in a real headless Chromium", .serialized)
struct UnsubscribeBrowserTests {
    @Test("Without JavaScript the page shows a POST form with its button; submitting it unsubscribes", .timeLimit(.minutes(5)))
    func worksWithoutJavaScript() async throws {
        try #require(HeadlessChromium.executable != nil, "chromium is not installed: run scripts/install-test-tools")
        let harness = try CheckoutHarness()
        _ = try await BuyerFollowUpHTTPTests.paidUnlinked(harness, locale: "en")
        harness.clock.advance(3600)
        await BuyerFollowUpHTTPTests.remindAndDeliver(harness)
        let path = try BuyerFollowUpHTTPTests.unsubscribePath(harness)

        try harness.app.app.start()
        let base = "http://127.0.0.1:\(harness.app.app.server.port)"
        let scratch = try TemporaryDirectory()
        let page = try await HeadlessChromium.run(
            BrowserLoad(url: base + path, device: .desktop, javaScript: false, dark: false, output: .dom), scratch: scratch.path)
        #expect(page.status == 0, "\(page.stderr.suffix(2000))")
        #expect(page.consoleMessages.isEmpty, "\(page.consoleMessages)")
        let dom = DOMInspection(page.dom)
        let form = try #require(dom.all("form").first { $0.attributes["action"] == path }, "no form posting to the link: \(page.dom.prefix(1500))")
        #expect(form.attributes["method"] == "post")
        #expect(dom.element(id: "unsubscribe")?.attributes["type"] == "submit")
        #expect(dom.all("script").isEmpty, "the page needs no script")
        let fields = dom.all("input").filter { $0.attributes["type"] == "hidden" }
            .map { #"<input type="hidden" name="\#($0.attributes["name"] ?? "")" value="\#($0.attributes["value"] ?? "")">"# }.joined()

        // The button's press, as the browser sends it: the same form, posted by the browser.
        let helper = try FakeHTTPServer { request in
            if request.path == "/press.js" {
                return HTTPResponse(status: .ok, contentType: "text/javascript", body: #"document.getElementById("press").submit();"#)
            }
            return .html(
                Array(
                    #"""
                    <!doctype html><html lang="en"><head><title>press</title></head><body>
                    <form id="press" method="post" action="\#(base + path)">\#(fields)</form>
                    <script src="/press.js"></script></body></html>
                    """#.utf8))
        }
        let pressed = try await HeadlessChromium.run(
            BrowserLoad(url: helper.baseURL + "/", device: .desktop, javaScript: true, dark: false, output: .dom), scratch: scratch.path)
        await helper.stop()
        let used = await harness.app.send(.get, path)
        await harness.app.app.shutdown()
        #expect(pressed.status == 0, "\(pressed.stderr.suffix(2000))")
        #expect(DOMInspection(pressed.dom).element(id: "unsubscribed") != nil, "not the done page: \(pressed.dom.prefix(1500))")
        #expect(used.status == .notFound, "the link is used")
    }
}
