import Foundation
import JSON
import Synchronization

/// One tab of the shared headless Chromium (`ChromiumBrowser`) in a browser context of its own:
/// fresh cookies, storage and cache, as a fresh profile has, kept across the steps of one flow
/// (navigate, fill a field, click, read the DOM and the cookies) and thrown away by `close()`.
///
/// The tab is set up before its first navigation as the device would show it: its User-Agent,
/// its viewport in CSS pixels at its zoom as the device scale factor (a phone is emulated as a
/// mobile screen, so `width=device-width` is the phone's width), JavaScript switched off the way
/// a user does it (the page's scripts do not run, `<noscript>` shows), and the color scheme.
/// Every console message, uncaught exception and browser log entry (where Chromium reports CSP
/// violations and failed loads) is kept in `messages`.
final class BrowserSession: Sendable {
    let device: BrowserDevice
    private let pipe: DevToolsPipe
    private let context: String
    private let session: String
    private let page = Mutex(PageState())
    /// How long a page may take to load.
    static let loadTimeout: Duration = .seconds(90)

    /// What the tab's events said so far.
    private struct PageState {
        var messages: [String] = []
        var loads = 0
        /// Times the main frame stopped loading: a load that ends without a load event (a page
        /// that sends itself to an app link the browser cannot open) ends here.
        var stops = 0
        var loading = false
        var mainFrame = ""
        var url = ""
        var lastEvent = ContinuousClock.now
    }

    /// Opens a tab in a new browser context of the shared browser.
    /// - Throws: `ChildProcessError` when Chromium cannot be started, `DevToolsError` when it
    ///   refuses a command.
    static func open(device: BrowserDevice, javaScript: Bool = true, dark: Bool = false) async throws -> BrowserSession {
        let pipe = try await ChromiumBrowser.shared.pipe()
        let context = try await pipe.call("Target.createBrowserContext", ["disposeOnDetach": true])["browserContextId"]?.stringValue
        guard let context else { throw DevToolsError("Target.createBrowserContext answered no browserContextId") }
        do {
            let target = try await pipe.call("Target.createTarget", ["url": "about:blank", "browserContextId": .string(context)])
            guard let targetID = target["targetId"]?.stringValue,
                let session = try await pipe.call("Target.attachToTarget", ["targetId": .string(targetID), "flatten": true])["sessionId"]?.stringValue
            else { throw DevToolsError("no target or session for a new tab") }
            let tab = BrowserSession(device: device, pipe: pipe, context: context, session: session)
            try await tab.prepare(javaScript: javaScript, dark: dark)
            return tab
        } catch {
            _ = try? await pipe.call("Target.disposeBrowserContext", ["browserContextId": .string(context)])
            throw error
        }
    }

    private init(device: BrowserDevice, pipe: DevToolsPipe, context: String, session: String) {
        self.device = device
        self.pipe = pipe
        self.context = context
        self.session = session
        pipe.onEvents(of: session) { [weak self] method, params in self?.record(method, params) }
    }

    private func prepare(javaScript: Bool, dark: Bool) async throws {
        for domain in ["Page.enable", "Runtime.enable", "Log.enable"] { _ = try await send(domain) }
        let frame = try await send("Page.getFrameTree")["frameTree"]?["frame"]?["id"]?.stringValue ?? ""
        page.withLock { $0.mainFrame = frame }
        _ = try await send("Emulation.setUserAgentOverride", ["userAgent": .string(device.userAgent)])
        _ = try await send(
            "Emulation.setDeviceMetricsOverride",
            [
                "width": .integer(Int64(device.width)), "height": .integer(Int64(device.height)),
                "deviceScaleFactor": .integer(Int64(device.zoom)), "mobile": .bool(device.isPhone)
            ])
        _ = try await send("Emulation.setScriptExecutionDisabled", ["value": .bool(!javaScript)])
        _ = try await send("Emulation.setEmulatedMedia", ["features": [["name": "prefers-color-scheme", "value": dark ? "dark" : "light"]]])
    }

    /// Sends a command to this tab.
    private func send(_ method: String, _ params: JSONValue = [:]) async throws -> JSONValue {
        try await pipe.call(method, params, session: session)
    }

    // MARK: Steps of a flow

    /// Loads `url` and waits until the page has loaded and settled: its load event fired, the
    /// tab stopped loading (a form its script submitted, a redirect by script, included) and
    /// nothing happened for a moment.
    /// - Throws: `DevToolsError` when the load failed (`net::ERR_…`) or did not finish in time.
    func navigate(_ url: String) async throws {
        let before = startLoad()
        let answer = try await send("Page.navigate", ["url": .string(url)])
        if let failure = answer["errorText"]?.stringValue, !failure.isEmpty {
            let message = "the load of \(url) failed: \(failure)"
            page.withLock { $0.messages.append(message) }
            throw DevToolsError(message)
        }
        try await settle(after: before, what: url)
    }

    /// Types `text` into the field `selector` names (focused first), as a person would.
    func fill(_ selector: String, _ text: String) async throws {
        _ = try await send("DOM.focus", ["nodeId": .integer(Int64(try await node(selector)))])
        _ = try await send("Input.insertText", ["text": .string(text)])
    }

    /// Clicks the middle of the element `selector` names (a submit button, a link) with the
    /// mouse; with `waitingForLoad` waits for the page that click loads, as `navigate` does.
    func click(_ selector: String, waitingForLoad: Bool = true) async throws {
        let id = try await node(selector)
        _ = try await send("DOM.scrollIntoViewIfNeeded", ["nodeId": .integer(Int64(id))])
        let quads = try await send("DOM.getContentQuads", ["nodeId": .integer(Int64(id))])["quads"]?.arrayValue ?? []
        let corners = quads.first?.arrayValue.compactMap(\.doubleValue) ?? []
        guard corners.count == 8 else { throw DevToolsError("\(selector) is not visible: nothing to click") }
        let x = (corners[0] + corners[2] + corners[4] + corners[6]) / 4
        let y = (corners[1] + corners[3] + corners[5] + corners[7]) / 4
        let before = waitingForLoad ? startLoad() : (0, 0)
        for type in ["mousePressed", "mouseReleased"] {
            _ = try await send(
                "Input.dispatchMouseEvent",
                [
                    "type": .string(type), "x": .number(x), "y": .number(y), "button": "left", "clickCount": 1
                ])
        }
        if waitingForLoad { try await settle(after: before, what: "the page \(selector) leads to") }
    }

    /// The document as it is now, `<html>…</html>` (what `--dump-dom` printed).
    func dom() async throws -> String {
        let root = try await send("DOM.getDocument", ["depth": 1])["root"]
        let html = root?["children"]?.arrayValue.first { $0["nodeName"]?.stringValue == "HTML" } ?? root
        guard let id = html?["nodeId"]?.intValue else { throw DevToolsError("DOM.getDocument answered no document") }
        return try await send("DOM.getOuterHTML", ["nodeId": .integer(Int64(id))])["outerHTML"]?.stringValue ?? ""
    }

    /// A PNG of the viewport, at the device's zoom (a phone's 390 CSS px are 780 pixels).
    func screenshot() async throws -> [UInt8] {
        let data = try await send("Page.captureScreenshot", ["format": "png"])["data"]?.stringValue ?? ""
        guard let png = Data(base64Encoded: data), !png.isEmpty else { throw DevToolsError("Page.captureScreenshot answered no image") }
        return Array(png)
    }

    /// The width in CSS pixels the page is laid out at (its layout viewport).
    func layoutWidth() async throws -> Int {
        try await send("Page.getLayoutMetrics")["cssLayoutViewport"]?["clientWidth"]?.intValue ?? 0
    }

    /// The cookies this tab's context holds, by name.
    func cookies() async throws -> [String: String] {
        let cookies = try await pipe.call("Storage.getCookies", ["browserContextId": .string(context)])["cookies"]?.arrayValue ?? []
        var byName: [String: String] = [:]
        for cookie in cookies {
            if let name = cookie["name"]?.stringValue { byName[name] = cookie["value"]?.stringValue ?? "" }
        }
        return byName
    }

    /// Every console message, uncaught exception, log entry and failed load so far.
    var messages: [String] { page.withLock { $0.messages } }

    /// The address of the document the tab shows (after redirects).
    var url: String { page.withLock { $0.url } }

    /// Closes the tab and throws its context away (cookies, storage, cache).
    func close() async {
        pipe.onEvents(of: session, nil)
        _ = try? await pipe.call("Target.disposeBrowserContext", ["browserContextId": .string(context)], timeout: .seconds(30))
    }

    // MARK: Loading

    private func node(_ selector: String) async throws -> Int {
        guard let root = try await send("DOM.getDocument", ["depth": 0])["root"]?["nodeId"]?.intValue else {
            throw DevToolsError("DOM.getDocument answered no document")
        }
        let found = try await send("DOM.querySelector", ["nodeId": .integer(Int64(root)), "selector": .string(selector)])["nodeId"]?.intValue ?? 0
        guard found != 0 else { throw DevToolsError("no element matches \(selector)") }
        return found
    }

    /// Marks a load as begun; the load events and stops before it.
    private func startLoad() -> (loads: Int, stops: Int) {
        page.withLock { state in
            state.loading = true
            state.lastEvent = ContinuousClock.now
            return (state.loads, state.stops)
        }
    }

    /// Waits for a load event (or the main frame's stop, for a load that ends without one) after
    /// `before`, then for the tab to stop loading and stay quiet for 200 ms (a navigation the page
    /// starts by itself that never stops is given 20 s before the page is taken as it is).
    private func settle(after before: (loads: Int, stops: Int), what: String) async throws {
        let deadline = ContinuousClock.now + Self.loadTimeout
        var loadedAt: ContinuousClock.Instant?
        while true {
            let state = page.withLock { $0 }
            let now = ContinuousClock.now
            if state.loads > before.loads || state.stops > before.stops {
                let loaded = loadedAt ?? now
                loadedAt = loaded
                let quiet = now - state.lastEvent >= .milliseconds(200)
                if quiet && (!state.loading || now - loaded > .seconds(20)) { return }
            }
            if now > deadline { throw DevToolsError("\(what) did not load within \(Self.loadTimeout)") }
            try await Task.sleep(for: .milliseconds(25))
        }
    }

    /// Keeps what an event of the tab says.
    private func record(_ method: String, _ params: JSONValue) {
        page.withLock { state in
            switch method {
            case "Page.loadEventFired":
                state.loads += 1
                state.lastEvent = ContinuousClock.now
            case "Page.frameStartedLoading", "Page.frameStoppedLoading":
                guard params["frameId"]?.stringValue == state.mainFrame else { return }
                state.loading = method == "Page.frameStartedLoading"
                if !state.loading { state.stops += 1 }
                state.lastEvent = ContinuousClock.now
            case "Page.frameNavigated":
                if params["frame"]?["id"]?.stringValue == state.mainFrame, let url = params["frame"]?["url"]?.stringValue { state.url = url }
                state.lastEvent = ContinuousClock.now
            case "Page.frameRequestedNavigation", "Page.frameStartedNavigating":
                state.lastEvent = ContinuousClock.now
            case "Runtime.consoleAPICalled":
                let words =
                    params["args"]?.arrayValue.map { $0["value"]?.stringValue ?? $0["description"]?.stringValue ?? "\($0["value"] ?? "")" } ?? []
                state.messages.append(
                    "console.\(params["type"]?.stringValue ?? "log"): \(words.joined(separator: " "))\(Self.place(params["stackTrace"]?["callFrames"]?.arrayValue.first))"
                )
            case "Runtime.exceptionThrown":
                let details = params["exceptionDetails"]
                let description = details?["exception"]?["description"]?.stringValue.map { String($0.prefix { $0 != "\n" }) } ?? ""
                state.messages.append("\(details?["text"]?.stringValue ?? "Uncaught") \(description)\(Self.place(details))")
            case "Log.entryAdded":
                let entry = params["entry"]
                state.messages.append(
                    "\(entry?["text"]?.stringValue ?? "") (\(entry?["level"]?.stringValue ?? "?") \(entry?["source"]?.stringValue ?? "?")\(Self.place(entry)))"
                )
            default:
                return
            }
        }
    }

    /// `, source: <url>:<line>` when an event names its place.
    private static func place(_ place: JSONValue?) -> String {
        guard let url = place?["url"]?.stringValue, !url.isEmpty else { return "" }
        return ", source: \(url):\((place?["lineNumber"]?.intValue ?? 0) + 1)"
    }
}

extension BrowserDevice {
    /// Phones (zoom 2) are emulated as mobile screens; desktops and frame windows are not.
    var isPhone: Bool { zoom > 1 }
}
