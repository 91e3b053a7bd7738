import Foundation
import HTTPCore
import TestSupport
import Testing

@testable import Web

/// The DevTools driver (`HeadlessChromium`, `BrowserSession`, `ChromiumBrowser`) catches what one
/// Chromium process per page caught, so the speed-up cannot hide a failure: a console error, a
/// CSP violation, an uncaught exception, a failed load, JavaScript that is off really off; each
/// load is the device it claims; a flow keeps its cookies and loses them with its context; and
/// the browser ends with its pipe. Named `…BrowserTests` so `scripts/test` runs it with the pages.
@Suite("The headless Chromium driver catches what the pages could hide", .serialized)
struct ChromiumDriverBrowserTests {
    /// A loopback site with the service's own security headers: a page whose script logs an
    /// error and marks the document, a style attribute the CSP refuses, a script that throws,
    /// and a page that reports how it was laid out.
    static func site() throws -> FakeHTTPServer {
        try FakeHTTPServer { request in
            var response: HTTPResponse
            switch request.path {
            case "/page":
                response = .html(
                    Array(
                        #"""
                        <!doctype html><html lang="en"><head><meta name="viewport" content="width=device-width"><title>page</title>
                        <script src="/page.js"></script><script src="/throws.js"></script><link rel="stylesheet" href="/missing.css"></head>
                        <body><main><p style="color: red">styled inline</p></main></body></html>
                        """#.utf8))
            case "/page.js":
                response = HTTPResponse(
                    status: .ok, contentType: "text/javascript",
                    body: #"""
                        console.error("boom from page.js");
                        document.documentElement.setAttribute("data-ran", "yes");
                        """#)
            case "/throws.js":
                response = HTTPResponse(status: .ok, contentType: "text/javascript", body: "const nothing = null; nothing.title = 1;")
            case "/device":
                response = .html(
                    Array(
                        #"""
                        <!doctype html><html lang="en"><head><meta name="viewport" content="width=device-width"><title>device</title>
                        <script src="/device.js"></script></head><body><main><p>device</p></main></body></html>
                        """#.utf8))
            case "/device.js":
                response = HTTPResponse(
                    status: .ok, contentType: "text/javascript",
                    body: #"""
                        var root = document.documentElement;
                        root.setAttribute("data-width", String(root.clientWidth));
                        root.setAttribute("data-dark", String(matchMedia("(prefers-color-scheme: dark)").matches));
                        root.setAttribute("data-agent", navigator.userAgent);
                        """#)
            case "/gone":
                response = .html(
                    Array(
                        #"<!doctype html><html lang="en"><title>gone</title><link rel="icon" href="data:,"><main><h1>Error 404</h1></main></html>"#
                            .utf8), status: .notFound)
            default:
                response = HTTPResponse(status: .notFound, contentType: "text/plain", body: "no")
            }
            SecurityHeaders.apply(to: &response)
            return response
        }
    }

    static func load(_ url: String, device: BrowserDevice = .iPhone, javaScript: Bool = true, dark: Bool = false, output: BrowserLoad.Output = .dom)
        async throws -> BrowserResult
    {
        try await HeadlessChromium.run(
            BrowserLoad(url: url, device: device, javaScript: javaScript, dark: dark, output: output), scratch: NSTemporaryDirectory())
    }

    @Test(
        "A console error, a CSP violation, an uncaught exception and failed loads are caught; JavaScript off is off",
        .timeLimit(.minutes(5)))
    func catchesWhatTheOldDriverCaught() async throws {
        try #require(HeadlessChromium.executable != nil, "chromium is not installed: run scripts/install-test-tools")
        let site = try Self.site()
        let refusing = try RefusingPort()
        async let on = Self.load(site.baseURL + "/page")
        async let off = Self.load(site.baseURL + "/page", javaScript: false)
        async let refused = Self.load("http://127.0.0.1:\(refusing.port)/")
        async let elsewhere = Self.load("http://pay.example.com/")
        let gone = try await Self.load(site.baseURL + "/gone")
        let (withScript, withoutScript, notListening, otherHost) = try await (on, off, refused, elsewhere)
        await site.stop()

        #expect(withScript.status == 0, "\(withScript.stderr)")
        #expect(withScript.consoleMessages.contains { $0.contains("console.error: boom from page.js") }, "\(withScript.consoleMessages)")
        #expect(
            withScript.consoleMessages.contains { $0.contains("Uncaught TypeError") && $0.contains("throws.js") }, "\(withScript.consoleMessages)")
        #expect(
            withScript.consoleMessages.contains { $0.contains("Content Security Policy") && $0.contains("inline style") },
            "\(withScript.consoleMessages)")
        #expect(withScript.dom.contains(#"data-ran="yes""#), "the page's script did not run: \(withScript.dom)")
        // A stylesheet that is not there (a 404 in text/plain) is caught; an error page's own 404 is the page's business.
        #expect(withScript.consoleMessages.contains { $0.contains("missing.css") }, "\(withScript.consoleMessages)")
        #expect(gone.status == 0 && gone.consoleMessages.isEmpty && gone.dom.contains("Error 404"), "\(gone)")

        // JavaScript off: the scripts did not run (no mark, no message, no exception); the CSP
        // violation of the style attribute is still caught.
        #expect(withoutScript.status == 0, "\(withoutScript.stderr)")
        #expect(!withoutScript.dom.contains("data-ran"), "a script ran with JavaScript off: \(withoutScript.dom)")
        #expect(withoutScript.dom.contains("styled inline"))
        #expect(!withoutScript.consoleMessages.contains { $0.contains("boom") || $0.contains("Uncaught") }, "\(withoutScript.consoleMessages)")
        #expect(
            withoutScript.consoleMessages.contains { $0.contains("Content Security Policy") && $0.contains("inline style") },
            "\(withoutScript.consoleMessages)")

        // A failed load fails the load, and says why: a port nobody listens on, and a host
        // other than the loopback (unresolvable by the browser's resolver rules).
        #expect(notListening.status != 0 && notListening.stderr.contains("net::ERR_CONNECTION_REFUSED"), "\(notListening)")
        #expect(otherHost.status != 0 && otherHost.stderr.contains("net::ERR_NAME_NOT_RESOLVED"), "\(otherHost)")
        #expect(notListening.consoleMessages.contains { $0.contains("net::ERR_CONNECTION_REFUSED") })
    }

    @Test(
        "Each load is its device: the phone's CSS width, its User-Agent, the color scheme, a 2x screenshot",
        .timeLimit(.minutes(5)))
    func loadsAsTheDevice() async throws {
        try #require(HeadlessChromium.executable != nil, "chromium is not installed: run scripts/install-test-tools")
        let site = try Self.site()
        let url = site.baseURL + "/device"
        async let phone = Self.load(url, output: .screenshot(path: NSTemporaryDirectory() + "driver-\(UUID().uuidString).png"))
        async let small = Self.load(url, device: .small, dark: true)
        async let desktop = Self.load(url, device: .desktop, output: .screenshot(path: NSTemporaryDirectory() + "driver-\(UUID().uuidString).png"))
        let (iPhone, narrow, wide) = try await (phone, small, desktop)
        let agents = site.requests.filter { $0.path == "/device" }.compactMap { $0.headers["User-Agent"] }
        await site.stop()

        #expect(iPhone.dom.contains(#"data-width="390""#) && iPhone.layoutWidth == 390, "\(iPhone.dom.prefix(300)) \(iPhone.layoutWidth)")
        #expect(narrow.dom.contains(#"data-width="320""#) && narrow.layoutWidth == 320, "\(narrow.dom.prefix(300))")
        #expect(wide.dom.contains(#"data-width="1280""#) && wide.layoutWidth == 1280, "\(wide.dom.prefix(300))")
        #expect(narrow.dom.contains(#"data-dark="true""#) && iPhone.dom.contains(#"data-dark="false""#))
        #expect(iPhone.dom.contains("iPhone OS 17_5") && wide.dom.contains("X11; Linux x86_64"))
        #expect(Set(agents) == [BrowserDevice.iPhone.userAgent, BrowserDevice.small.userAgent, BrowserDevice.desktop.userAgent], "\(agents)")
        // The PNG's own size (IHDR): the viewport at the device's zoom.
        #expect(Self.pngSize(iPhone.screenshot) == "780x1688")
        #expect(Self.pngSize(wide.screenshot) == "1280x800")
    }

    @Test(
        "A session fills a form, submits it, keeps its cookie across steps, and a new session starts without it",
        .timeLimit(.minutes(5)))
    func sessionFlow() async throws {
        try #require(HeadlessChromium.executable != nil, "chromium is not installed: run scripts/install-test-tools")
        let server = try FakeHTTPServer { request in
            switch (request.method.rawValue, request.path) {
            case ("GET", "/form"):
                return .html(
                    Array(
                        #"""
                        <!doctype html><html lang="en"><head><title>form</title></head><body><main>
                        <form method="post" action="/hello"><label for="name">Name</label><input id="name" name="name">
                        <button id="send" type="submit">Send</button></form></main></body></html>
                        """#.utf8))
            case ("POST", "/hello"):
                let name = String(decoding: request.body, as: UTF8.self).replacingOccurrences(of: "name=", with: "")
                var response = HTTPResponse.redirect(to: "/hello", status: .seeOther)
                response.headers.add("Set-Cookie", "greeted=\(name); Path=/; HttpOnly; SameSite=Lax")
                return response
            default:
                let cookie = request.headers["Cookie"] ?? ""
                let name = cookie.hasPrefix("greeted=") ? String(cookie.dropFirst("greeted=".count)) : "nobody"
                return .html(
                    Array(#"<!doctype html><html lang="en"><title>hello</title><main><h1 id="hello">Hello \#(name)</h1></main></html>"#.utf8))
            }
        }
        // JavaScript off: the form is typed into and sent as a person does, without any script.
        let tab = try await BrowserSession.open(device: .iPhone, javaScript: false)
        var steps: [String] = []
        var cookies: [String: String] = [:]
        do {
            try await tab.navigate(server.baseURL + "/form")
            try await tab.fill("#name", "Ada")
            try await tab.click("#send")
            steps.append(try await tab.dom())
            cookies = try await tab.cookies()
            try await tab.navigate(server.baseURL + "/hello")
            steps.append(try await tab.dom())
        } catch {
            Issue.record("the flow stopped: \(error)")
        }
        let messages = tab.messages
        await tab.close()
        let fresh = try await BrowserSession.open(device: .desktop)
        try await fresh.navigate(server.baseURL + "/hello")
        let freshDOM = try await fresh.dom()
        let freshCookies = try await fresh.cookies()
        await fresh.close()
        await server.stop()

        #expect(steps.count == 2 && steps.allSatisfy { $0.contains("Hello Ada") }, "\(steps)")
        #expect(cookies["greeted"] == "Ada", "\(cookies)")
        #expect(messages.isEmpty, "\(messages)")
        #expect(freshDOM.contains("Hello nobody") && freshCookies.isEmpty, "\(freshDOM) \(freshCookies)")
    }

    @Test("Closing its pipe ends the browser (as the test process ending does)", .timeLimit(.minutes(3)))
    func browserEndsWithItsPipe() async throws {
        try #require(HeadlessChromium.executable != nil, "chromium is not installed: run scripts/install-test-tools")
        let (pipe, profile) = try await ChromiumBrowser.launch()
        let process = pipe.process
        #expect(process.isRunning)
        pipe.shut()
        let ended = await offPool { () -> Bool in
            let deadline = ContinuousClock.now + .seconds(30)
            while process.isRunning && ContinuousClock.now < deadline { usleep(50_000) }
            return !process.isRunning
        }
        await pipe.close()  // kills it if it had not ended
        try? FileManager.default.removeItem(atPath: profile)
        #expect(ended, "chromium \(process.pid) was still running 30 s after its pipe closed")
    }

    /// `<width>x<height>` from a PNG's IHDR chunk.
    static func pngSize(_ png: [UInt8]) -> String? {
        guard png.count > 24, png[12..<16].elementsEqual("IHDR".utf8) else { return nil }
        func number(_ at: Int) -> Int { png[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        return "\(number(16))x\(number(20))"
    }
}
