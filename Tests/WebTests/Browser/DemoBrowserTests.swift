import Foundation
import TestSupport
import Testing

@testable import App

/// Demo mode's pages in a real headless Chromium: the home page with `a#demo-buy` and the
/// simulator's checkout page with `form#demo-pay`, on a phone and a desktop, JavaScript on and
/// off: no console errors or CSP violations. With `TOLLGATE_SCREENSHOTS=1` the phone
/// screenshots (and the checkout page's desktop one) are written to `docs/` for the README.
@Suite("Demo pages in a real headless Chromium", .serialized)
struct DemoBrowserTests {
    static let docs = PackagePaths.root + "/docs"

    @Test("Home and demo checkout on a phone and a desktop: no console errors; screenshots for the README", .timeLimit(.minutes(5)))
    func demoPages() async throws {
        try #require(HeadlessChromium.executable != nil, "chromium is not installed: run scripts/install-test-tools")
        let demo = try DemoHarness()
        let sessionID = try await demo.startCheckout(email: "you@example.com")
        let paidID = try await demo.startCheckout()
        _ = await demo.submit(paidID, choice: "pay", email: "you@example.com")
        let base = "http://127.0.0.1:\(demo.app.app.server.port)"
        let scratch = try TemporaryDirectory()
        let pages = [
            ("home", "/", #"id="demo-buy""#),
            ("checkout", "/demo/checkout/\(sessionID)", #"id="demo-pay""#),
            ("success", "/checkout/success?session_id=\(paidID)", "Redemption code")
        ]
        var jobs: [BrowserTests.Job] = []
        var shots: [(String, String)] = []
        for (name, path, _) in pages {
            let page = BrowserTests.Page(name: "demo-\(name)", path: path, kind: .home)
            for device in [BrowserDevice.iPhone, .desktop] {
                for javaScript in [true, false] {
                    jobs.append(
                        .init(page: page, load: BrowserLoad(url: base + path, device: device, javaScript: javaScript, dark: false, output: .dom)))
                }
                let file = "\(scratch.path)/demo-\(name)-\(device.name).png"
                shots.append((file, "\(Self.docs)/demo-\(name)-\(device == .iPhone ? "phone" : "desktop").png"))
                jobs.append(
                    .init(
                        page: page,
                        load: BrowserLoad(url: base + path, device: device, javaScript: true, dark: false, output: .screenshot(path: file))))
            }
        }
        let results = try await BrowserTests.run(jobs, scratch: scratch.path)
        await demo.stop()
        for (job, result) in results {
            let label = "\(job.page.name) on \(job.load.device), JavaScript \(job.load.javaScript ? "on" : "off")"
            #expect(result.status == 0, "\(label): the page did not load: \(result.stderr)")
            if case .screenshot = job.load.output { #expect(result.screenshot.count > 1000, "\(label): no screenshot") }
            #expect(result.consoleMessages.isEmpty, "\(label): \(result.consoleMessages)")
            if case .dom = job.load.output, let marker = pages.first(where: { "demo-\($0.0)" == job.page.name })?.2 {
                #expect(result.dom.contains(marker), "\(label): \(marker) missing")
            }
        }
        // For the README: the phone views and the checkout page's desktop view, refreshed in docs/
        // only when asked (TOLLGATE_SCREENSHOTS=1), so a test run leaves the tree clean.
        let update = HeadlessChromium.screenshotsWanted
        for (shot, destination) in shots
        where update && FileManager.default.fileExists(atPath: shot)
            && (destination.hasSuffix("-phone.png") || destination.hasSuffix("checkout-desktop.png"))
        {
            try? FileManager.default.removeItem(atPath: destination)
            try FileManager.default.copyItem(atPath: shot, toPath: destination)
        }
        print("DemoBrowserTests: \(results.count) Chromium loads; screenshots in \(Self.docs)/demo-*.png")
    }
}
