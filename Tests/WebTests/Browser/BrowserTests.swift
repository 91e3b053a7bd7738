import Domain
import Foundation
import HTTPCore
import HTTPRouting
import Integrations
import Synchronization
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@testable import Web
@testable import App

/// Every browser page of the service loaded by a real headless Chromium from the real server on
/// a loopback port, at phone and desktop sizes, with JavaScript on and off. With
/// `TOLLGATE_SCREENSHOTS=1` the screenshots are written to `.build/browser-screenshots/` (the
/// path is printed) for a person to look at; without it they are still taken and checked.
@Suite("Pages in a real headless Chromium", .serialized)
struct BrowserTests {
    /// Where the screenshots go (under `.build/`, which git ignores).
    static let screenshotFolder = PackagePaths.root + "/.build/browser-screenshots"
    /// The most a page may weigh with everything it loads.
    static let pageBudget = 30 * 1024
    /// Page loads at once (`HeadlessChromium` holds the whole test process to the same number).
    static let parallelism = HeadlessChromium.parallelism

    /// One page of the service and what it must show.
    struct Page: Sendable {
        enum Kind: Sendable { case home, success, redeem, unknown, expired, cancel, notFound, signIn, signInLink, account, goNativeStore }
        let name: String
        let path: String
        let kind: Kind
    }

    /// One Chromium run to make and the page it is for.
    struct Job: Sendable {
        let page: Page
        let load: BrowserLoad
    }

    // One Chromium process per load took 418 s in a quiet clean-clone run, 615 s beside three
    // builds; one browser driven over DevTools takes a minute or two. The limit guards against a
    // hang, it is not a benchmark.
    @Test(
        "Every page at phone and desktop sizes, JavaScript on and off: right links per device, no console errors or CSP violations, under 30 KB, nothing from another host",
        .timeLimit(.minutes(15)))
    func everyPage() async throws {
        try #require(HeadlessChromium.executable != nil, "chromium is not installed: run scripts/install-test-tools")
        let started = ContinuousClock.now
        let harness = try CheckoutHarness(extra: ["products": ["com.example.monthly", "com.example.yearly"]])
        let sessionID = try await harness.startCheckout()
        try harness.pay(sessionID)
        let code = try #require(CheckoutHarness.code(in: await harness.successPage(sessionID)))
        // Signed in by the emailed link before the server (and its mail worker) starts.
        let cookie = try await Self.webSessionCookie(harness)
        let link = try await Self.signInLinkToken(harness)
        try harness.app.app.start()
        let base = "http://127.0.0.1:\(harness.app.app.server.port)"
        let scratch = try TemporaryDirectory()
        if HeadlessChromium.screenshotsWanted {
            try? FileManager.default.removeItem(atPath: Self.screenshotFolder)
            try FileManager.default.createDirectory(atPath: Self.screenshotFolder, withIntermediateDirectories: true)
        }

        let live = [
            Page(name: "home", path: "/", kind: .home),
            Page(name: "success", path: "/checkout/success?session_id=\(sessionID)", kind: .success),
            Page(name: "redeem", path: "/redeem/\(code)", kind: .redeem),
            Page(name: "unknown-code", path: "/redeem/ZZZZ-ZZZZ-ZZZZ-ZZZZ", kind: .unknown),
            Page(name: "cancel", path: "/checkout/cancel", kind: .cancel),
            Page(name: "error-404", path: "/no/such/page", kind: .notFound)
        ]
        let expired = [Page(name: "expired-code", path: "/redeem/\(code)", kind: .expired)]

        var results: [(Job, BrowserResult)] = []
        var weights: [String] = []
        results += try await Self.run(Self.jobs(live, base: base), scratch: scratch.path)
        weights += try await Self.weighAll(live, base: base)
        // The buyer's web account: the signed-out pages as they are; the signed-in ones through a
        // loopback redirect that sets the session cookie (cookies are per host, not per port), as
        // signing in would (the sign-in itself is tested over HTTP in WebAccountTests).
        let seeder = try FakeHTTPServer { request in
            var response = HTTPResponse.redirect(to: base + (request.queryParameter("to") ?? "/"), status: .found)
            response.headers.add("Set-Cookie", "\(WebCookies.session)=\(cookie); Path=/; HttpOnly; SameSite=Lax")
            return response
        }
        let account = [
            Page(name: "sign-in", path: "/account/sign-in", kind: .signIn),
            Page(name: "sign-in-link", path: "/account/sign-in/link?token=\(link)", kind: .signInLink)
        ]
        let signedIn = [
            Page(name: "account", path: "/account", kind: .account),
            Page(name: "gonative-store", path: "/gonative/store", kind: .goNativeStore)
        ]
        results += try await Self.run(Self.jobs(account, base: base, light: true), scratch: scratch.path)
        weights += try await Self.weighAll(account, base: base)
        results += try await Self.run(
            Self.jobs(signedIn, base: seeder.baseURL + "/seed?to=", light: true), scratch: scratch.path)
        weights += try await Self.weighAll(signedIn, base: base, cookie: "\(WebCookies.session)=\(cookie)")
        await seeder.stop()

        harness.clock.advance(2 * 3600)  // past the 1 h code_ttl of the harness
        results += try await Self.run(Self.jobs(expired, base: base), scratch: scratch.path)
        weights += try await Self.weighAll(expired, base: base)

        await harness.app.app.shutdown()

        for (job, result) in results {
            let label = "\(job.page.name) on \(job.load.device) with JavaScript \(job.load.javaScript ? "on" : "off")\(job.load.dark ? ", dark" : "")"
            #expect(result.status == 0, "\(label): the page did not load: \(result.stderr.suffix(2000))")
            #expect(result.consoleMessages.isEmpty, "\(label): console messages (errors, CSP violations): \(result.consoleMessages)")
            // Laid out at the device's CSS width, as the overflow check measures it.
            #expect(result.layoutWidth == job.load.device.width, "\(label): laid out \(result.layoutWidth) px wide")
            switch job.load.output {
            case .screenshot(let path):
                #expect(result.screenshot.count > 1000, "\(label): no screenshot for \(path)")
            case .dom:
                for problem in PageExpectations.problems(in: DOMInspection(result.dom), dom: result.dom, page: job.page, load: job.load, code: code) {
                    Issue.record("\(label): \(problem)")
                }
            }
        }
        let elapsed = ContinuousClock.now - started
        print(
            """
            BrowserTests: \(results.count) Chromium page loads in \(elapsed.components.seconds) s (\(Self.parallelism) at a time).
            BrowserTests: \(HeadlessChromium.screenshotsWanted ? "screenshots in \(Self.screenshotFolder)" : "screenshots taken, not written (TOLLGATE_SCREENSHOTS=1 writes them)")
            BrowserTests: page weights (HTML + every file it loads):
              \(weights.joined(separator: "\n  "))
            """)
    }

    @Test(
        "The checks catch a CSP violation, an uncaught exception and a request to another host (negative proof)",
        .timeLimit(.minutes(5)))
    func detectorCatchesViolations() async throws {
        try #require(HeadlessChromium.executable != nil, "chromium is not installed: run scripts/install-test-tools")
        let server = try FakeHTTPServer { request in
            var response: HTTPResponse
            switch request.path {
            case "/bad":
                response = .html(
                    Array(
                        #"""
                        <!doctype html><html lang="en"><head><title>bad</title></head><body>
                        <p style="color: red">inline style</p><script>document.title = "inline ran"</script>
                        <img src="http://tracker.example.net/pixel.png" alt="">
                        </body></html>
                        """#.utf8))
            case "/throws":
                response = .html(Array(#"<!doctype html><html lang="en"><title>t</title><script src="/throws.js"></script></html>"#.utf8))
            case "/throws.js":
                response = HTTPResponse(status: .ok, contentType: "text/javascript", body: "const page = null; page.title = 1;")
            default:
                response = HTTPResponse(status: .notFound, contentType: "text/plain", body: "no")
            }
            SecurityHeaders.apply(to: &response)
            return response
        }
        let scratch = try TemporaryDirectory()
        func load(_ path: String, javaScript: Bool) async throws -> BrowserResult {
            try await HeadlessChromium.run(
                BrowserLoad(url: server.baseURL + path, device: .iPhone, javaScript: javaScript, dark: false, output: .dom),
                scratch: scratch.path)
        }
        async let badOn = load("/bad", javaScript: true)
        async let badOff = load("/bad", javaScript: false)
        async let throwing = load("/throws", javaScript: true)
        let (on, off, thrown) = try await (badOn, badOff, throwing)
        await server.stop()

        let csp = "Content Security Policy"
        #expect(on.consoleMessages.contains { $0.contains(csp) && $0.contains("inline script") }, "\(on.consoleMessages)")
        #expect(on.consoleMessages.contains { $0.contains(csp) && $0.contains("inline style") }, "\(on.consoleMessages)")
        #expect(on.consoleMessages.contains { $0.contains(csp) && $0.contains("tracker.example.net") }, "\(on.consoleMessages)")
        #expect(on.dom.contains("<title>bad</title>"), "the inline script did not run")
        // With JavaScript off the style attribute and the other host's image are still caught.
        #expect(off.consoleMessages.contains { $0.contains(csp) && $0.contains("inline style") }, "\(off.consoleMessages)")
        #expect(off.consoleMessages.contains { $0.contains(csp) && $0.contains("tracker.example.net") }, "\(off.consoleMessages)")
        #expect(!off.consoleMessages.contains { $0.contains("inline script") }, "JavaScript really is off: \(off.consoleMessages)")
        #expect(thrown.consoleMessages.contains { $0.contains("Uncaught TypeError") }, "\(thrown.consoleMessages)")
        // The page-checking rules flag the other host too.
        let problems = PageExpectations.hostProblems(in: DOMInspection(on.dom))
        #expect(problems.contains { $0.contains("tracker.example.net") }, "\(problems)")
    }

    // MARK: The web account

    /// A fresh sign-in link's token for the harness's buyer (signed in once already).
    static func signInLinkToken(_ harness: CheckoutHarness) async throws -> String {
        let now = harness.clock.now
        return try await harness.app.app.database.write { connection in
            guard let account = try AccountRepository.find(confirmedEmail: "buyer@example.com", on: connection) else {
                throw HarnessError("the buyer has no account")
            }
            return try AuthTokenRepository.issue(.webSignIn, accountID: account.id, email: "buyer@example.com", on: connection, now: now)
        }
    }

    /// The cookie value of a web session for the harness's buyer, signed in by the emailed link.
    static func webSessionCookie(_ harness: CheckoutHarness) async throws -> String {
        let browser = CookieBrowser(harness.app)
        _ = try await WebAccountTests.signInByLink(harness, browser)
        guard let cookie = browser.cookies[WebCookies.session] else { throw HarnessError("the sign-in link did not sign in") }
        return cookie
    }

    // MARK: Running

    /// Per page: a DOM load for every device with JavaScript on and off, and screenshots of the
    /// phone and desktop views in light and dark, JavaScript on and off, and at 320 px.
    /// `light`: a phone and a desktop only, and two screenshots (pages without per-device content).
    static func jobs(_ pages: [Page], base: String, light: Bool = false) -> [Job] {
        var jobs: [Job] = []
        for page in pages {
            let url = base + page.path
            if light {
                for device in [BrowserDevice.iPhone, .desktop] {
                    for javaScript in [true, false] {
                        jobs.append(Job(page: page, load: BrowserLoad(url: url, device: device, javaScript: javaScript, dark: false, output: .dom)))
                    }
                    let file = "\(screenshotFolder)/\(page.name)-\(device.name)-js-on-light.png"
                    jobs.append(
                        Job(page: page, load: BrowserLoad(url: url, device: device, javaScript: true, dark: false, output: .screenshot(path: file))))
                }
                continue
            }
            for device in [BrowserDevice.iPhone, .android, .desktop] {
                for javaScript in [true, false] {
                    jobs.append(Job(page: page, load: BrowserLoad(url: url, device: device, javaScript: javaScript, dark: false, output: .dom)))
                }
            }
            let shots: [(BrowserDevice, Bool, Bool)] = [
                (.iPhone, true, false), (.iPhone, false, true), (.android, true, false),
                (.desktop, true, false), (.desktop, false, true), (.small, true, false)
            ]
            for (device, javaScript, dark) in shots {
                let file = "\(screenshotFolder)/\(page.name)-\(device.name)-js-\(javaScript ? "on" : "off")-\(dark ? "dark" : "light").png"
                jobs.append(
                    Job(page: page, load: BrowserLoad(url: url, device: device, javaScript: javaScript, dark: dark, output: .screenshot(path: file))))
            }
        }
        return jobs
    }

    /// Runs `jobs` through Chromium, `parallelism` at a time, in order of the answers; screenshots
    /// are written only when `HeadlessChromium.screenshotsWanted`.
    static func run(_ jobs: [Job], scratch: String) async throws -> [(Job, BrowserResult)] {
        try await withThrowingTaskGroup(of: (Job, BrowserResult).self) { group in
            var pending = jobs[...]
            var results: [(Job, BrowserResult)] = []
            func next() {
                guard let job = pending.popFirst() else { return }
                group.addTask {
                    (job, try await HeadlessChromium.run(job.load, scratch: scratch, writingScreenshot: HeadlessChromium.screenshotsWanted))
                }
            }
            for _ in 0..<parallelism { next() }
            while let result = try await group.next() {
                results.append(result)
                next()
            }
            return results
        }
    }

    /// Weighs each page as each device gets it; records a failure above the budget.
    static func weighAll(_ pages: [Page], base: String, cookie: String? = nil) async throws -> [String] {
        var lines: [String] = []
        for page in pages {
            for device in [BrowserDevice.iPhone, .android, .desktop] {
                let weight = try await weigh(base: base, path: page.path, userAgent: device.userAgent, cookie: cookie)
                let parts = weight.parts.map { "\($0.0) \($0.1)" }.joined(separator: ", ")
                #expect(weight.total < pageBudget, "\(page.name) on \(device) weighs \(weight.total) bytes: \(parts)")
                lines.append("\(page.name)/\(device.name): \(weight.total) B (\(parts))")
            }
        }
        return lines
    }

    static let weighingClient = SocketHTTPClient(service: "browser-test", maxResponseBytes: 1 << 20)

    /// The bytes of a page and of every file it loads (each once, as a browser caches them).
    static func weigh(base: String, path: String, userAgent: String, cookie: String? = nil) async throws -> (total: Int, parts: [(String, Int)]) {
        // Our own client: it sends the Cookie header as given and follows no redirect, so a
        // signed-in page that sent the browser to sign in would be seen, not weighed instead.
        func fetch(_ address: String) async throws -> [UInt8] {
            var headers = [(name: "User-Agent", value: userAgent)]
            if let cookie { headers.append((name: "Cookie", value: cookie)) }
            let response = try await weighingClient.send(OutboundRequest(method: "GET", url: try #require(URL(string: address)), headers: headers))
            #expect(!(300..<400).contains(response.status), "\(address) answered \(response.status): a redirect, not the page")
            return response.body
        }
        let html = try await fetch(base + path)
        var parts: [(String, Int)] = [("html", html.count)]
        var seen: Set<String> = []
        for resource in DOMInspection(String(decoding: html, as: UTF8.self)).subresources where seen.insert(resource).inserted {
            parts.append((resource, try await fetch(base + resource).count))
        }
        return (parts.reduce(0) { $0 + $1.1 }, parts)
    }
}
