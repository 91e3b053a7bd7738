import Foundation
import Synchronization
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The one headless Chromium of the test process, started on first use and kept open for every
/// page load after it (each in a browser context of its own: `BrowserSession`), closed when the
/// process exits. Should it die, the next use starts another.
///
/// Flags as a user's browser has none: no sandbox (root), no GPU, no first-run, sync, extensions
/// or background traffic, and every host but the loopback unresolvable, so a request elsewhere
/// fails loudly. Run as root, Chromium raises its own threads' priority (nice -8 seen), so setpriv
/// drops CAP_SYS_NICE first and it stays at nice 10 below the tests' own servers.
actor ChromiumBrowser {
    static let shared = ChromiumBrowser()

    private var running: DevToolsPipe?
    private var starting: Task<(DevToolsPipe, String), any Error>?
    /// The open browser, for `atexit` (which cannot await).
    private static let atExit = Mutex<(pipe: DevToolsPipe, profile: String)?>(nil)

    /// The browser's path, or nil when it is not installed.
    static var executable: String? {
        for name in ["chromium", "chromium-browser"] {
            if let path = ChildProcessRunner.locate(name) { return path }
        }
        return nil
    }

    /// The open browser's pipe, starting the browser when none is open.
    /// - Throws: `ChildProcessError` when Chromium is missing or cannot be started;
    ///   `DevToolsError` when it does not answer.
    func pipe() async throws -> DevToolsPipe {
        if let running, running.isOpen { return running }
        if let starting { return try await starting.value.0 }
        let task = Task { try await Self.launch() }
        starting = task
        defer { starting = nil }
        let (pipe, profile) = try await task.value
        running = pipe
        Self.atExit.withLock { $0 = (pipe, profile) }
        return pipe
    }

    /// Starts a browser of its own (the shared one is `pipe()`) and waits until it answers; its
    /// pipe and its profile folder (which the caller removes once the browser has exited).
    static func launch() async throws -> (DevToolsPipe, String) {
        guard let chromium = executable else {
            throw ChildProcessError(description: "chromium is not installed: run scripts/install-test-tools")
        }
        guard let setpriv = ChildProcessRunner.locate("setpriv"), let nice = ChildProcessRunner.locate("nice") else {
            throw ChildProcessError(description: "setpriv and nice (util-linux, coreutils) are needed to start chromium")
        }
        let profile = NSTemporaryDirectory() + "tollgate-chromium-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: profile, withIntermediateDirectories: true)
        let arguments = [
            "--bounding-set", "-sys_nice", "--inh-caps", "-sys_nice", "--", nice, "-n", "10", chromium,
            "--headless=new", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
            "--no-default-browser-check", "--disable-extensions", "--disable-background-networking", "--disable-sync",
            "--disable-component-update", "--disable-default-apps", "--mute-audio", "--password-store=basic",
            "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
            "--user-data-dir=" + profile, "about:blank"
        ]
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = profile  // keeps Chromium's caches out of the real home
        let pipe = try DevToolsPipe(setpriv, arguments, environment: environment, log: profile + "/chromium.log")
        _ = registerExitHandler
        do {
            _ = try await pipe.call("Browser.getVersion", timeout: .seconds(120))
        } catch {
            let log = (try? String(contentsOfFile: profile + "/chromium.log", encoding: .utf8)) ?? ""
            await pipe.close()
            try? FileManager.default.removeItem(atPath: profile)
            throw DevToolsError("chromium did not answer on its DevTools pipe: \(error)\n\(log.suffix(2000))")
        }
        return (pipe, profile)
    }

    /// At exit the shared browser's pipe is closed (Chromium then exits by itself; it would at
    /// the kernel's closing of the descriptor too, should the process die without `exit`).
    private static let registerExitHandler: Void = {
        atexit {
            guard let (pipe, profile) = ChromiumBrowser.atExit.withLock({ $0 }) else { return }
            pipe.shut()
            for _ in 0..<150 where pipe.process.isRunning { usleep(20_000) }
            try? FileManager.default.removeItem(atPath: profile)
        }
    }()
}
