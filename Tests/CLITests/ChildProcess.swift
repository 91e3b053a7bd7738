import Dispatch
import Foundation

/// Runs a binary built next to the test bundle and collects its output.
///
/// Every wait runs on a Dispatch thread, never on the Swift concurrency pool: the pool has one
/// thread per core and other suites' live servers need it while a child process runs.
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
    }

    let process = Process()
    private let out = Pipe()
    private let err = Pipe()

    init(_ product: String, _ arguments: [String], environment: [String: String] = [:], directory: String? = nil) {
        process.executableURL = Self.productsDirectory.appendingPathComponent(product)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("TOLLGATE_") }
        for (key, value) in environment { env[key] = value }
        process.environment = env
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        process.standardOutput = out
        process.standardError = err
    }

    func start() throws { try process.run() }

    /// Waits for exit (off the concurrency pool) and returns everything it printed.
    func finish() async -> Result {
        await Self.offPool { finishBlocking() }
    }

    private func finishBlocking() -> Result {
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self), stderr: String(decoding: stderr, as: UTF8.self))
    }

    /// Reads standard error line by line until `predicate` holds for a line (or EOF / timeout).
    func waitForStderrLine(timeout: TimeInterval = 30, _ predicate: @escaping @Sendable (String) -> Bool) async -> String? {
        await Self.offPool { waitForLine(err.fileHandleForReading, timeout: timeout, predicate) }
    }

    func waitForStdoutLine(timeout: TimeInterval = 30, _ predicate: @escaping @Sendable (String) -> Bool) async -> String? {
        await Self.offPool { waitForLine(out.fileHandleForReading, timeout: timeout, predicate) }
    }

    /// Runs blocking work on a Dispatch thread and resumes when it is done.
    static func offPool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: work()) }
        }
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

    /// Runs to completion.
    static func run(_ product: String, _ arguments: [String], environment: [String: String] = [:], directory: String? = nil) async throws -> Result {
        let child = ChildProcess(product, arguments, environment: environment, directory: directory)
        try child.start()
        return await child.finish()
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
