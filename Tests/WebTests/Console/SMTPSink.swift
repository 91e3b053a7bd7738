import Foundation
import TestSupport

/// aiosmtpd (a real SMTP server, not ours) on a local port, through the Mail tests' own script
/// (`Tests/MailTests/Support/smtp_server.py`): every message it accepts lands as a `.eml` file.
final class SMTPSink: @unchecked Sendable {
    // @unchecked: the process is only touched by the test that owns the sink, start to stop.
    let port: Int
    let directory: TemporaryDirectory
    private let process: SpawnedProcess

    static let script: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<2 { url.deleteLastPathComponent() }
        return url.deletingLastPathComponent().path + "/MailTests/Support/smtp_server.py"
    }()

    /// Starts the sink and waits (up to 30 s) until it listens.
    /// - Throws: `HarnessError` when aiosmtpd is missing or does not start.
    init() async throws {
        directory = try TemporaryDirectory()
        port = try freePort()
        process = try SpawnedProcess(
            "/usr/bin/python3", [Self.script, "--port", String(port), "--dir", directory.path + "/received"],
            standardInput: .pipe, standardOutput: .null, standardError: .file(directory.path + "/stderr.log"))
        let deadline = ContinuousClock.now + .seconds(30)
        while !FileManager.default.fileExists(atPath: directory.path + "/ready") {
            guard process.isRunning, ContinuousClock.now < deadline else {
                let log = (try? String(contentsOfFile: directory.path + "/stderr.log", encoding: .utf8)) ?? ""
                stop()
                throw HarnessError("the aiosmtpd sink did not start (run scripts/install-test-tools): \(log)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    deinit { stop() }

    func stop() {
        try? process.standardInput?.close()
        if process.isRunning { process.terminate() }
    }

    /// The messages received so far, decoded from quoted-printable.
    func messages() -> [String] {
        let folder = directory.path + "/received"
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".eml") }
        return names.compactMap { try? String(contentsOfFile: folder + "/" + $0, encoding: .utf8) }.map(MailReader.decodeQuotedPrintable)
    }

    /// The messages that contain `text`, once there are `count` of them (waiting up to 60 s).
    func messages(containing text: String, atLeast count: Int) async throws -> [String] {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            let found = messages().filter { $0.contains(text) }
            if found.count >= count { return found }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw HarnessError("fewer than \(count) mails containing \(text) arrived at the SMTP sink: \(messages().map { $0.prefix(300) })")
    }

    /// The first message that contains `text`, waiting up to 60 s for it to arrive.
    func message(containing text: String) async throws -> String {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if let found = messages().first(where: { $0.contains(text) }) { return found }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw HarnessError("no mail containing \(text) arrived at the SMTP sink")
    }
}
