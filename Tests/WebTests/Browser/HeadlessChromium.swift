import Foundation
import TestSupport

/// A device the pages are looked at on: its User-Agent and its viewport in CSS pixels, at its
/// zoom, which is the device scale factor: a phone's page lays out at the phone's CSS width
/// (`BrowserSession` emulates it as a mobile screen) and its screenshot is a sharp 2x picture
/// like a phone's own.
struct BrowserDevice: Sendable, Hashable, CustomStringConvertible {
    let name: String
    let userAgent: String
    let width: Int
    let height: Int
    let zoom: Int

    var description: String { name }

    static let iPhone = BrowserDevice(
        name: "iphone",
        userAgent:
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
        width: 390, height: 844, zoom: 2)
    static let android = BrowserDevice(
        name: "android",
        userAgent: "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36",
        width: 412, height: 915, zoom: 2)
    static let desktop = BrowserDevice(
        name: "desktop",
        userAgent: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36",
        width: 1280, height: 800, zoom: 1)
    /// The narrowest phone the pages must stay readable on (an iPhone SE's 320 px).
    static let small = BrowserDevice(
        name: "small320",
        userAgent:
            "Mozilla/5.0 (iPhone; CPU iPhone OS 15_8 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/15.6 Mobile/15E148 Safari/604.1",
        width: 320, height: 640, zoom: 2)
}

/// How one page load is set up and what it produces.
struct BrowserLoad: Sendable {
    enum Output: Sendable { case dom, screenshot(path: String) }

    let url: String
    let device: BrowserDevice
    let javaScript: Bool
    let dark: Bool
    let output: Output
}

/// What Chromium left after loading a page: the DOM after the load event and after the page's
/// own scripts settled (`document.documentElement.outerHTML`, what `--dump-dom` printed) and
/// every message the page produced: console messages, uncaught exceptions ("Uncaught
/// TypeError …"), and the browser's log, where CSP violations ("… violates the following Content
/// Security Policy directive …") and failed loads are reported.
struct BrowserResult: Sendable {
    let dom: String
    let consoleMessages: [String]
    /// 0 when the page loaded; 1 when the load failed or timed out (`stderr` says why).
    let status: Int32
    let stderr: String
    /// The PNG of a `.screenshot` load (empty for `.dom`), written to its path or not.
    var screenshot: [UInt8] = []
    /// The width in CSS pixels the page was laid out at.
    var layoutWidth: Int = 0
}

/// Debian's Chromium, headless: one browser for the whole test process (`ChromiumBrowser`),
/// driven over the DevTools protocol, each load in a fresh browser context of its own
/// (`BrowserSession`), `parallelism` loads side by side.
///
/// The pages write nothing to the console themselves, so every message is a failure. JavaScript
/// is switched off the way a user does it, and every host but the loopback is unresolvable, so
/// a request elsewhere fails loudly.
///
/// Screenshots: a `.screenshot` load always renders and captures the page; the suites write the
/// PNGs only when `TOLLGATE_SCREENSHOTS=1` (`screenshotsWanted`).
enum HeadlessChromium {
    /// Loads at once: enough to keep both cores busy while one page waits on the server.
    static let parallelism = 4
    private static let slot = BrowserSlots(capacity: parallelism)

    /// Whether the suites write their screenshots (`TOLLGATE_SCREENSHOTS=1`): to
    /// `docs/screenshots/` and `docs/demo-*.png` for the docs, to `.build/browser-screenshots/`
    /// for every page. Without it the pages are still rendered, captured and checked.
    static var screenshotsWanted: Bool { ProcessInfo.processInfo.environment["TOLLGATE_SCREENSHOTS"] == "1" }

    /// The browser's path, or nil when it is not installed.
    static var executable: String? { ChromiumBrowser.executable }

    /// Loads `load.url` once in a fresh browser context; a `.screenshot` load writes its PNG.
    /// `scratch` is kept for callers; the browser's profile lives in a temporary folder of its own.
    /// - Throws: `ChildProcessError` when Chromium cannot be started; `DevToolsError` when it
    ///   stops answering. A page that fails to load is no error: its `status` is 1.
    static func run(_ load: BrowserLoad, scratch: String) async throws -> BrowserResult {
        try await run(load, scratch: scratch, writingScreenshot: true)
    }

    /// `run(_:scratch:)`, writing a `.screenshot` load's PNG only when `writingScreenshot`.
    static func run(_ load: BrowserLoad, scratch: String, writingScreenshot: Bool) async throws -> BrowserResult {
        await slot.acquire()
        do {
            let result = try await loadOnce(load, writingScreenshot: writingScreenshot)
            await slot.release()
            return result
        } catch {
            await slot.release()
            throw error
        }
    }

    private static func loadOnce(_ load: BrowserLoad, writingScreenshot: Bool) async throws -> BrowserResult {
        let session = try await BrowserSession.open(device: load.device, javaScript: load.javaScript, dark: load.dark)
        var failure: String?
        var dom = ""
        var screenshot: [UInt8] = []
        var width = 0
        do {
            try await session.navigate(load.url)
            dom = try await session.dom()
            width = try await session.layoutWidth()
            if case .screenshot(let path) = load.output {
                screenshot = try await session.screenshot()
                if writingScreenshot { try Data(screenshot).write(to: URL(fileURLWithPath: path)) }
            }
        } catch let error as DevToolsError {
            failure = error.description
        } catch {
            await session.close()
            throw error
        }
        let url = session.url
        let messages = session.messages.filter { !isExpected($0, document: url) }
        await session.close()
        return BrowserResult(
            dom: dom, consoleMessages: messages, status: failure == nil ? 0 : 1, stderr: failure ?? "",
            screenshot: screenshot, layoutWidth: width)
    }
}

extension HeadlessChromium {
    /// What the browser logs that is no failure of the page, and that one Chromium process per
    /// page (reading its console from its log) never reported: the status line of the document
    /// itself (an error page's 404 is its own business: the DOM checks look at it), and the
    /// browser declining to open an app link without a tap (the `/redeem` landing's one attempt
    /// to open the app, which a phone's browser hands to the app). A failed stylesheet, image or
    /// script still counts.
    static func isExpected(_ message: String, document: String) -> Bool {
        if message.hasPrefix("Failed to load resource: the server responded with a status of") {
            return !document.isEmpty && message.hasSuffix("source: \(document):1)")
        }
        return message.hasPrefix("Not allowed to launch '") && message.contains("because a user gesture is required")
    }
}

/// Lets `capacity` loads run at once in the test process; the others wait their turn.
private actor BrowserSlots {
    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(capacity: Int) { free = capacity }

    func acquire() async {
        guard free == 0 else {
            free -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty { free += 1 } else { waiting.removeFirst().resume() }
    }
}
