import Foundation
import Synchronization
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// An error of the test harness with a message saying what to do.
struct HarnessError: Error, CustomStringConvertible {
    let description: String
    /// The server could not bind its port: somebody else holds it.
    var addressInUse = false
}

/// aiosmtpd (a real SMTP server, not ours) running as a subprocess on a local port.
final class SMTPTestServer: @unchecked Sendable {
    // @unchecked: the Process is only touched by the test that owns the server, start to stop.
    let port: Int
    let receivedDirectory: String
    private let process: SpawnedProcess
    private let stopped = Atomic<Bool>(false)

    struct Options {
        var tls: TestCertificates.Pair?
        var implicitTLS = false
        var auth: (login: String, password: String, only: String?)?
        var reject: String?
        /// The server process's whole environment; this process's when nil.
        var environment: [String: String]?
    }

    /// Starts the server on `port` (a free one by default) and waits until it listens, polling
    /// with `Task.sleep` so no pool thread blocks meanwhile. When `port` is nil and the chosen one
    /// is taken before aiosmtpd binds it (another process's socket), it tries again on another
    /// port, up to five times.
    /// - Throws: `HarnessError` when aiosmtpd is missing or the server does not come up.
    convenience init(port: Int? = nil, options: Options = Options()) async throws {
        var attempt = 1
        while true {
            do {
                try await self.init(exactPort: port ?? freePort(), options: options)
                return
            } catch let error as HarnessError where port == nil && error.addressInUse && attempt < 5 {
                attempt += 1
            }
        }
    }

    private init(exactPort port: Int, options: Options) async throws {
        let base = try makeTemporaryDirectory()
        self.port = port
        receivedDirectory = base + "/received"
        var arguments = [Self.script, "--port", String(port), "--dir", receivedDirectory]
        if let tls = options.tls {
            arguments += ["--tls-cert", tls.certificate, "--tls-key", tls.key]
            if options.implicitTLS { arguments.append("--implicit-tls") }
        }
        if let auth = options.auth {
            arguments += ["--auth", "\(auth.login):\(auth.password)"]
            if let only = auth.only { arguments += ["--auth-only", only] }
        }
        if let reject = options.reject { arguments += ["--reject", reject] }
        let errorLog = base + "/stderr.log"
        process = try SpawnedProcess(
            Self.python, arguments, environment: options.environment, standardInput: .pipe, standardOutput: .null,
            standardError: .file(errorLog))
        let ready = base + "/ready"
        let deadline = ContinuousClock.now + .seconds(30)
        while !FileManager.default.fileExists(atPath: ready) {
            if !process.isRunning {
                let log = (try? String(contentsOfFile: errorLog, encoding: .utf8)) ?? ""
                if process.terminationStatus == 3 || log.contains("No module named") {
                    throw HarnessError(
                        description: "aiosmtpd is missing for \(Self.python): run scripts/install-test-tools "
                            + "(Debian's python3-aiosmtpd). \(log)")
                }
                throw HarnessError(
                    description: "the aiosmtpd test server exited with \(process.terminationStatus ?? -1): \(log)",
                    addressInUse: log.contains("address already in use"))
            }
            guard ContinuousClock.now < deadline else {
                stop()
                throw HarnessError(description: "the aiosmtpd test server did not start within 30 s")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    deinit { stop() }

    /// Stops the server: closes its standard input (the script exits at end of input) and sends it
    /// SIGTERM. Does not wait for the exit, which `SpawnedProcess.terminate()` reaps on a Dispatch thread,
    /// so `defer` and `deinit` can call it without blocking a pool thread. Idempotent.
    func stop() {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        try? process.standardInput?.close()
        if process.isRunning { process.terminate() }
    }

    /// The messages received so far, as text.
    func received() throws -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: receivedDirectory)) ?? []
        return try names.filter { $0.hasSuffix(".eml") }.sorted().map {
            try String(contentsOfFile: receivedDirectory + "/" + $0, encoding: .utf8)
        }
    }

    /// Debian's Python, the one `scripts/install-test-tools` installs `python3-aiosmtpd` for. Never
    /// the `python3` first in PATH: pyenv's or a virtual environment's would lack aiosmtpd.
    static let python = "/usr/bin/python3"

    static let script: String = {
        var url = URL(fileURLWithPath: #filePath)
        url.deleteLastPathComponent()
        return url.path + "/smtp_server.py"
    }()
}

/// A test CA and server certificates made with the openssl command-line tool, once per test run.
struct TestCertificates: Sendable {
    /// A certificate and its key.
    struct Pair: Sendable {
        let certificate: String
        let key: String
    }

    /// The CA certificate to trust through the configured CA file.
    let caFile: String
    /// A server certificate for `localhost` (DNS name only, no IP address), signed by the CA.
    let localhost: Pair

    /// Made once, by the first test that asks; the others await the same task (no lazy initializer
    /// blocking pool threads while openssl runs).
    static let shared = Task { try await make() }

    /// The certificates of this test run.
    /// - Throws: `HarnessError` when openssl is missing or fails.
    static func get() async throws -> TestCertificates {
        do {
            return try await shared.value
        } catch let error as HarnessError {
            throw error
        } catch {
            throw HarnessError(description: "\(error)")
        }
    }

    private static func make() async throws -> TestCertificates {
        let directory = try makeTemporaryDirectory()
        try await TestCertificateFactory.makeCA("ca", commonName: "Tollgate Mail Test CA", in: directory)
        try await TestCertificateFactory.makeLocalhostServer(signedBy: "ca", in: directory)
        return TestCertificates(
            caFile: "\(directory)/ca.pem",
            localhost: Pair(certificate: "\(directory)/server.pem", key: "\(directory)/server.key"))
    }
}
