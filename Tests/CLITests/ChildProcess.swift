import Foundation
import TestSupport

/// Runs a binary built next to the test bundle and collects its output.
///
/// Every wait runs off the Swift concurrency pool (TestSupport's `offPool` and
/// `ChildProcessRunner`): the pool has one thread per core and other suites' live servers need it
/// while a child process runs.
final class ChildProcess: @unchecked Sendable {
    // `spawned` is set once by `start()` before any other use; each ChildProcess belongs to one test.
    /// The folder holding the built products (`.build/debug`), found from this test binary.
    static let productsDirectory: URL = {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
    }()

    static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    struct Result {
        /// The exit status, or the signal's number when `bySignal`.
        let status: Int32
        let bySignal: Bool
        let stdout: String
        let stderr: String

        init(_ result: ProcessResult) {
            status = result.status
            bySignal = result.endedBySignal
            stdout = result.stdoutText
            stderr = result.stderrText
        }
    }

    private let executable: String
    private let arguments: [String]
    private let environment: [String: String]
    private let directory: String?
    private var spawned: SpawnedProcess?

    /// - Parameter product: a product of this build, or the absolute path of another binary.
    init(_ product: String, _ arguments: [String], environment: [String: String] = [:], directory: String? = nil) {
        executable = product.hasPrefix("/") ? product : Self.productsDirectory.appendingPathComponent(product).path
        self.arguments = arguments
        self.environment = Self.environment(adding: environment)
        self.directory = directory
    }

    /// The child's process id (after `start()`).
    var pid: pid_t { spawned?.pid ?? 0 }

    /// This process's environment without any `TOLLGATE_` variable, plus `extra`.
    static func environment(adding extra: [String: String]) -> [String: String] {
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("TOLLGATE_") }
        for (key, value) in extra { env[key] = value }
        return env
    }

    func start() throws {
        spawned = try SpawnedProcess(executable, arguments, environment: environment, directory: directory)
    }

    /// Waits for exit (off the concurrency pool) and returns everything it printed that
    /// `waitForStderrLine`/`waitForStdoutLine` have not consumed.
    /// - Throws: `ChildProcessError` when the output pipes cannot be read.
    func finish() async throws -> Result {
        guard let spawned else { throw ChildProcessError(description: "the child was never started") }
        return Result(try await ChildProcessRunner.finish(spawned, stdout: spawned.standardOutput, stderr: spawned.standardError))
    }

    /// Whether the child exits within `seconds`; one still running then is killed (SIGKILL), so a
    /// test that expected it to stop fails instead of waiting on it for ever.
    func exits(within seconds: TimeInterval) async -> Bool {
        guard let spawned else { return false }
        return await offPool {
            let deadline = Date().addingTimeInterval(seconds)
            while spawned.isRunning {
                guard Date() < deadline else {
                    spawned.send(SIGKILL)
                    return false
                }
                usleep(10_000)
            }
            return true
        }
    }

    /// Reads standard error line by line until `predicate` holds for a line (or EOF / timeout).
    func waitForStderrLine(timeout: TimeInterval = 30, _ predicate: @escaping @Sendable (String) -> Bool) async -> String? {
        guard let handle = spawned?.standardError else { return nil }
        return await offPool { self.waitForLine(handle, timeout: timeout, predicate) }
    }

    func waitForStdoutLine(timeout: TimeInterval = 30, _ predicate: @escaping @Sendable (String) -> Bool) async -> String? {
        guard let handle = spawned?.standardOutput else { return nil }
        return await offPool { self.waitForLine(handle, timeout: timeout, predicate) }
    }

    private func waitForLine(_ handle: FileHandle, timeout: TimeInterval, _ predicate: (String) -> Bool) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        var buffer = Data()
        while Date() < deadline {
            let chunk = handle.availableData
            if chunk.isEmpty { return nil }
            buffer.append(chunk)
            while let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                if predicate(line) { return line }
            }
        }
        return nil
    }

    /// Runs `product` to completion, off the concurrency pool.
    /// - Throws: `ChildProcessError` when it cannot be launched or its output cannot be read.
    static func run(_ product: String, _ arguments: [String], environment: [String: String] = [:], directory: String? = nil) async throws -> Result {
        Result(
            try await ChildProcessRunner.run(
                productsDirectory.appendingPathComponent(product).path, arguments, directory: directory,
                environment: Self.environment(adding: environment)))
    }
}

/// A fresh temporary directory, removed when released.
final class TemporaryDirectory: Sendable {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "tollgate-cli-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// Writes a valid configuration file and returns its path.
    func writeConfig(_ extra: [String: Any] = [:]) throws -> String {
        var json: [String: Any] = [
            "base_url": "http://localhost:8080",
            "listen": ["host": "127.0.0.1", "port": 0],
            "database": ["path": path + "/db/tollgate.sqlite"],
            "secret_key": "cli-test-secret-key-0123456789abcdef012345",
            "app": ["name": "Example", "scheme": "exampleapp"],
            "stripe": ["secret_key": "sk_test_do_not_print_me_123", "webhook_secret": "whsec_do_not_print_me"],
            // Outside demo mode `serve` refuses to start without an app key (issue 40, finding 9).
            "api_keys": ["public": ["pk_cli_test"]],
            "mail": ["transport": "file", "file_dir": path + "/mail", "from": "Example <no-reply@example.com>"],
            "paths": ["templates_dir": ChildProcess.packageRoot + "/templates", "public_dir": ChildProcess.packageRoot + "/Public"]
        ]
        for (key, value) in extra { json[key] = value }
        let file = path + "/config.json"
        try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: file))
        return file
    }
}
