import Foundation
import Testing
import TestSupport
@testable import Mail

/// The Mail end-to-end tests start aiosmtpd with Debian's Python, the one
/// `scripts/install-test-tools` installs `python3-aiosmtpd` for, whatever `python3` comes first in
/// PATH (pyenv, a virtual environment without aiosmtpd).
@Suite struct SMTPTestPythonTests {
    @Test func theTestSMTPServerStartsWhenPATHsPython3LacksAiosmtpd() async throws {
        // A `python3` first in PATH that has no aiosmtpd: it fails exactly as such an interpreter
        // fails on smtp_server.py (status 3, "No module named"), so reaching it fails the test.
        let shadow = try makeTemporaryDirectory()
        let fake = shadow + "/python3"
        try "#!/bin/sh\necho \"No module named 'aiosmtpd' (PATH's python3)\" >&2\nexit 3\n"
            .write(toFile: fake, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: fake)
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = shadow + ":" + (environment["PATH"] ?? "/usr/bin:/bin")

        let server = try await SMTPTestServer(options: .init(environment: environment))
        defer { server.stop() }
        let smtp = SMTPConfiguration(
            host: "127.0.0.1", port: server.port, security: .none, username: nil, password: nil, caFile: nil,
            heloName: "tollgate.test", connectTimeout: .seconds(10), replyTimeout: .seconds(20), dataTimeout: .seconds(30))
        let message = MailMessage(
            outboxID: "path", template: "test", from: try MailAddress("noreply@tollgate.test", displayName: "Tollgate"),
            to: try MailAddress("jane@example.com", displayName: "Jane"), subject: "PATH", textBody: "delivered",
            htmlBody: "<p>delivered</p>", messageID: "<path@tollgate.test>", date: Date())
        try await SMTPTransport(configuration: smtp).send(message)
        #expect(try server.received().count == 1)
    }
}
