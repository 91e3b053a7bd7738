import Foundation
import TestSupport

/// A device the pages are looked at on: its User-Agent and its viewport in CSS pixels.
///
/// Headless Chromium will not make a window narrower than 500 px, so phones are emulated with a
/// window twice their size at 200 % zoom (a fresh profile's default zoom): the page then lays out
/// at the phone's CSS width, and the screenshot is a sharp 2x picture like a phone's own.
struct BrowserDevice: Sendable, Hashable, CustomStringConvertible {
    let name: String
    let userAgent: String
    let width: Int
    let height: Int
    let zoom: Int

    var description: String { name }

    static let iPhone = BrowserDevice(
        name: "iphone",
        userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
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
        userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 15_8 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/15.6 Mobile/15E148 Safari/604.1",
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

/// What Chromium left after loading a page: the DOM after scripts ran (for `.dom` loads) and
/// every message the page wrote to its console, which is where Chromium reports CSP
/// violations ("… violates the following Content Security Policy directive …"), uncaught
/// exceptions ("Uncaught TypeError …") and failed loads.
struct BrowserResult: Sendable {
    let dom: String
    let consoleMessages: [String]
    let status: Int32
    let stderr: String
}

/// Debian's Chromium run headless, once per page load, off Swift's cooperative pool.
///
/// Console output is read from Chromium's own log (`--enable-logging=stderr`): each console
/// message, whatever its level, is a line `[…:INFO:CONSOLE:<line>] "<text>", source: <url>`.
/// The pages write nothing to the console themselves, so every such line is a failure.
/// JavaScript is switched off the way a user does it, with the profile's content setting, and
/// every host but the loopback is made unresolvable, so a request elsewhere fails loudly.
enum HeadlessChromium {
    /// Two at once: the machine the tests are written for has two cores.
    private static let slot = BrowserSlots(capacity: 2)

    /// The browser's path, or nil when it is not installed.
    static var executable: String? {
        for name in ["chromium", "chromium-browser"] {
            if let path = ChildProcessRunner.locate(name) { return path }
        }
        return nil
    }

    /// Loads `load.url` once in a fresh profile under `scratch`, or in `profile` when given: a
    /// profile kept from one load to the next keeps its cookies, as one person's browser does
    /// through a flow of several pages (the caller removes it).
    /// - Throws: `ChildProcessError` when Chromium cannot be started; an error when its profile
    ///   cannot be written.
    static func run(_ load: BrowserLoad, scratch: String, profile kept: String? = nil) async throws -> BrowserResult {
        guard let chromium = executable else {
            throw ChildProcessError(description: "chromium is not installed: run scripts/install-test-tools")
        }
        let profile = kept ?? scratch + "/profile-" + UUID().uuidString
        try writeProfile(at: profile, javaScript: load.javaScript, zoom: load.device.zoom)
        defer { if kept == nil { try? FileManager.default.removeItem(atPath: profile) } }
        var arguments = [
            "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
            "--no-default-browser-check", "--disable-extensions", "--disable-background-networking", "--disable-sync",
            "--disable-component-update", "--disable-default-apps", "--mute-audio", "--password-store=basic",
            "--enable-logging=stderr", "--v=0", "--timeout=120000",
            "--force-device-scale-factor=1",
            "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
            "--user-data-dir=" + profile,
            "--user-agent=" + load.device.userAgent,
            "--window-size=\(load.device.width * load.device.zoom),\(load.device.height * load.device.zoom)",
            // 0 = dark, 1 = light (blink's PreferredColorScheme).
            "--blink-settings=preferredColorScheme=\(load.dark ? 0 : 1)",
        ]
        switch load.output {
        case .dom: arguments.append("--dump-dom")
        case .screenshot(let path): arguments.append("--screenshot=" + path)
        }
        arguments.append(load.url)
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = profile   // keeps Chromium's caches out of the real home
        // At most two Chromiums in the whole test run, at low priority: each takes about half of both
        // cores while it renders, and the rest of a parallel test run has loopback timeouts to keep;
        // the pages wait instead. Run as root, Chromium raises its own threads' priority (nice -8
        // seen), so setpriv drops CAP_SYS_NICE first and nice 15 holds.
        await slot.acquire()
        let result: ProcessResult
        do {
            result = try await ChildProcessRunner.run(
                "setpriv", ["--bounding-set", "-sys_nice", "--inh-caps", "-sys_nice", "--", "nice", "-n", "15", chromium] + arguments,
                directory: scratch, environment: environment)
            await slot.release()
        } catch {
            await slot.release()
            throw error
        }
        let stderr = result.stderrText
        return BrowserResult(
            dom: result.stdoutText, consoleMessages: consoleMessages(in: stderr), status: result.status, stderr: stderr)
    }

    /// The console messages in Chromium's log, one per `:CONSOLE` line, with their source.
    static func consoleMessages(in log: String) -> [String] {
        log.split(separator: "\n").compactMap { line in
            guard let marker = line.range(of: ":CONSOLE") else { return nil }
            guard let close = line[marker.upperBound...].firstIndex(of: "]") else { return String(line) }
            return line[line.index(after: close)...].trimmingCharacters(in: .whitespaces)
        }
    }

    /// A profile with JavaScript allowed or blocked and the default zoom set, as a user would.
    private static func writeProfile(at path: String, javaScript: Bool, zoom: Int) throws {
        try FileManager.default.createDirectory(atPath: path + "/Default", withIntermediateDirectories: true)
        // Chromium's zoom level is log base 1.2 of the factor.
        let level = zoom == 1 ? 0 : log(Double(zoom)) / log(1.2)
        let preferences: [String: Any] = [
            "profile": ["default_content_setting_values": ["javascript": javaScript ? 1 : 2]],
            "partition": ["default_zoom_level": ["x": level]],
        ]
        let data = try JSONSerialization.data(withJSONObject: preferences)
        try data.write(to: URL(fileURLWithPath: path + "/Default/Preferences"))
    }
}

/// Lets `capacity` Chromiums run at once in the test process; the others wait their turn.
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
