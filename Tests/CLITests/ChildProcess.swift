import Foundation
import TestSupport

/// Runs a binary built next to the test bundle and collects its output.
///
/// Every wait runs off the Swift concurrency pool (TestSupport's `offPool` and
/// `ChildProcessRunner`): the pool has one thread per core and other suites' live servers need it
/// while a child process runs.
struct ChildProcess: @unchecked Sendable {
    // Process and Pipe are not Sendable; each ChildProcess is used by one test at a time.
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
        let status: Int32
        let stdout: String
        let stderr: String

        init(_ result: ProcessResult) {
            status = result.status
            stdout = result.stdoutText
            stderr = result.stderrText
        }
    }

    let process = Process()
    private let out = Pipe()
    private let err = Pipe()

    init(_ product: String, _ arguments: [String], environment: [String: String] = [:], directory: String? = nil) {
        process.executableURL = Self.productsDirectory.appendingPathComponent(product)
        process.arguments = arguments
        process.environment = Self.environment(adding: environment)
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        process.standardOutput = out
        process.standardError = err
    }

    /// This process's environment without any `TOLLGATE_` variable, plus `extra`.
    static func environment(adding extra: [String: String]) -> [String: String] {
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("TOLLGATE_") }
        for (key, value) in extra { env[key] = value }
        return env
    }

    func start() throws { try ProcessLauncher.launch(process) }

    /// Waits for exit (off the concurrency pool) and returns everything it printed that
    /// `waitForStderrLine`/`waitForStdoutLine` have not consumed.
    /// - Throws: `ChildProcessError` when the output pipes cannot be read.
    func finish() async throws -> Result {
        Result(try await ChildProcessRunner.finish(process, stdout: out.fileHandleForReading, stderr: err.fileHandleForReading))
    }

    /// Reads standard error line by line until `predicate` holds for a line (or EOF / timeout).
    func waitForStderrLine(timeout: TimeInterval = 30, _ predicate: @escaping @Sendable (String) -> Bool) async -> String? {
        await offPool { waitForLine(err.fileHandleForReading, timeout: timeout, predicate) }
    }

    func waitForStdoutLine(timeout: TimeInterval = 30, _ predicate: @escaping @Sendable (String) -> Bool) async -> String? {
        await offPool { waitForLine(out.fileHandleForReading, timeout: timeout, predicate) }
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
        Result(try await ChildProcessRunner.run(
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
            "mail": ["transport": "file", "file_dir": path + "/mail", "from": "Example <no-reply@example.com>"],
            "paths": ["templates_dir": ChildProcess.packageRoot + "/templates", "public_dir": ChildProcess.packageRoot + "/Public"],
        ]
        for (key, value) in extra { json[key] = value }
        let file = path + "/config.json"
        try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: file))
        return file
    }
}
