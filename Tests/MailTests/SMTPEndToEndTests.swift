import Foundation
import Storage
import Testing
import TestSupport
@testable import Mail

/// Our SMTP client against aiosmtpd, a real SMTP server that is not ours, run as a subprocess.
/// These tests fail (never skip) when aiosmtpd is missing, saying how to install it.
@Suite struct SMTPEndToEndTests {
    func smtp(
        port: Int, security: SMTPSecurity = .none, host: String = "127.0.0.1", caFile: String? = nil,
        login: (String, String)? = nil
    ) -> SMTPConfiguration {
        SMTPConfiguration(
            host: host, port: port, security: security, username: login?.0, password: login?.1, caFile: caFile,
            heloName: "tollgate.test", connectTimeout: .seconds(10), replyTimeout: .seconds(20), dataTimeout: .seconds(30))
    }

    func message(_ id: String = "e2e", subject: String = "Grüße aus Tollgate", text: String) throws -> MailMessage {
        MailMessage(
            outboxID: id, template: "test", from: try MailAddress("noreply@tollgate.test", displayName: "Tollgate"),
            to: try MailAddress("jane@example.com", displayName: "Jane"), subject: subject, textBody: text,
            htmlBody: "<p>\(text)</p>", messageID: "<\(id)@tollgate.test>", date: Date())
    }

    func messageIDs(_ messages: [String]) -> [String] {
        messages.compactMap { text in
            text.components(separatedBy: "\r\n").first { $0.hasPrefix("Message-ID: ") }.map { String($0.dropFirst(12)) }
        }
    }

    @Test func plainDeliveryKeepsDotsAndBytesIntact() async throws {
        let server = try await SMTPTestServer()
        defer { server.stop() }
        let body = "first line\n.a line starting with a dot\n..two dots\n.\nend = done " + String(repeating: "long ", count: 60)
        try await SMTPTransport(configuration: smtp(port: server.port)).send(try message(text: body))
        let received = try server.received()
        #expect(received.count == 1)
        let text = try #require(received.first)
        #expect(messageIDs(received) == ["<e2e@tollgate.test>"])
        #expect(text.contains("Subject: =?UTF-8?B?"))
        // aiosmtpd removed the dot-stuffing: the decoded text part equals what we sent.
        let textPart = try #require(
            text.components(separatedBy: "quoted-printable\r\n\r\n").dropFirst().first?
                .components(separatedBy: "\r\n--=_tollgate_").first)
        #expect(String(decoding: decodeQP(textPart), as: UTF8.self) == body.replacingOccurrences(of: "\n", with: "\r\n"))
    }

    @Test func startTLSWithTheTestCATrustedThroughConfigurationAndAuthPlain() async throws {
        let certificates = try await TestCertificates.get()
        var options = SMTPTestServer.Options()
        options.tls = certificates.localhost
        options.auth = ("mailer", "s3cret pass", "PLAIN")
        let server = try await SMTPTestServer(options: options)
        defer { server.stop() }
        let configuration = smtp(
            port: server.port, security: .starttls, host: "localhost", caFile: certificates.caFile,
            login: ("mailer", "s3cret pass"))
        try await SMTPTransport(configuration: configuration).send(try message(text: "over STARTTLS"))
        #expect(messageIDs(try server.received()) == ["<e2e@tollgate.test>"])

        // A wrong password is refused; it is a configuration problem, so the outbox retries.
        var wrong = configuration
        wrong.password = "nope"
        let error = await #expect(throws: MailError.self) {
            try await SMTPTransport(configuration: wrong).send(try message("e2e2", text: "x"))
        }
        #expect(error?.disposition == .transient)
        #expect(error?.message.contains("535") == true, "\(String(describing: error))")
        #expect(error?.message.contains("nope") == false)
        #expect(try server.received().count == 1)
    }

    @Test func implicitTLSWithAuthLogin() async throws {
        let certificates = try await TestCertificates.get()
        var options = SMTPTestServer.Options()
        options.tls = certificates.localhost
        options.implicitTLS = true
        options.auth = ("mailer", "pw", "LOGIN")
        let server = try await SMTPTestServer(options: options)
        defer { server.stop() }
        let configuration = smtp(
            port: server.port, security: .tls, host: "localhost", caFile: certificates.caFile,
            login: ("mailer", "pw"))
        try await SMTPTransport(configuration: configuration).send(try message(text: "over implicit TLS"))
        #expect(messageIDs(try server.received()) == ["<e2e@tollgate.test>"])
    }

    @Test func untrustedOrMismatchedCertificatesAreRefusedAndNothingIsSentInPlaintext() async throws {
        let certificates = try await TestCertificates.get()
        var options = SMTPTestServer.Options()
        options.tls = certificates.localhost
        let server = try await SMTPTestServer(options: options)
        defer { server.stop() }
        // The test CA is not in the system store.
        let untrusted = await #expect(throws: MailError.self) {
            try await SMTPTransport(configuration: smtp(port: server.port, security: .starttls, host: "localhost"))
                .send(try message(text: "x"))
        }
        #expect(untrusted?.disposition == .transient)
        #expect(untrusted?.message.contains("certificate") == true)
        // Trusted CA, but the certificate names localhost, not 127.0.0.1.
        let mismatch = await #expect(throws: MailError.self) {
            try await SMTPTransport(
                configuration: smtp(
                    port: server.port, security: .starttls, host: "127.0.0.1",
                    caFile: certificates.caFile)
            )
            .send(try message(text: "x"))
        }
        #expect(mismatch?.disposition == .transient)
        #expect(mismatch?.message.contains("certificate") == true)
        #expect(try server.received().isEmpty)

        // A server without STARTTLS is refused when STARTTLS is configured.
        let plain = try await SMTPTestServer()
        defer { plain.stop() }
        let downgrade = await #expect(throws: MailError.self) {
            try await SMTPTransport(configuration: smtp(port: plain.port, security: .starttls, caFile: certificates.caFile))
                .send(try message(text: "x"))
        }
        #expect(downgrade?.message.contains("STARTTLS") == true)
        #expect(try plain.received().isEmpty)
    }

    @Test func serverDownThenUpDeliversEveryMessageExactlyOnce() async throws {
        let database = try makeDatabase()
        let clock = TestClock()
        let port = try freePort()
        let worker = try makeWorker(database, transport: SMTPTransport(configuration: smtp(port: port)), clock: clock)
        var ids: [String] = []
        for index in 0..<6 {
            ids.append(
                try await enqueue(
                    redemptionMessage(key: "k\(index)", recipient: "user\(index)@example.com"),
                    into: database, at: clock.now
                ).id)
        }
        #expect(await worker.runOnce() == 6)
        let store = OutboxStore(database: database)
        let pending = try await store.outboxEntries(status: .pending, limit: 10)
        #expect(pending.count == 6)
        #expect(pending.allSatisfy { $0.lastError?.contains("cannot connect") == true })

        let server = try await SMTPTestServer(port: port)
        defer { server.stop() }
        clock.advance(by: 61)
        #expect(await worker.runOnce() == 6)
        #expect(await worker.runOnce() == 0)
        #expect(try await store.outboxEntries(status: .sent, limit: 10).count == 6)
        let received = try server.received()
        #expect(received.count == 6)
        #expect(messageIDs(received).sorted() == ids.map { "<\($0)@tollgate.localhost>" }.sorted())
        // The redemption code arrived, quoted-printable encoded in both parts.
        #expect(received.allSatisfy { $0.contains("K7QM-4XPD-9RTW") })
    }

    @Test func rejectionsAreMarkedFailedWithTheServersText() async throws {
        for mode in ["rcpt", "data"] {
            var options = SMTPTestServer.Options()
            options.reject = mode
            let server = try await SMTPTestServer(options: options)
            defer { server.stop() }
            let database = try makeDatabase()
            let clock = TestClock()
            let worker = try makeWorker(database, transport: SMTPTransport(configuration: smtp(port: server.port)), clock: clock)
            let id = try await enqueue(redemptionMessage(key: "k"), into: database, at: clock.now).id
            #expect(await worker.runOnce() == 1)
            let failed = try await OutboxStore(database: database).outboxEntries(status: .failed, limit: 10)
            #expect(failed.map(\.id) == [id], "\(mode)")
            let error = failed.first?.lastError ?? ""
            #expect(error.contains("550"), "\(mode)")
            #expect(error.contains(mode == "rcpt" ? "mailbox unavailable (test rejection)" : "content rejected (test rejection)"))
            #expect(try server.received().isEmpty)
        }
    }

    @Test func aCrashBetweenSendingAndMarkingRepeatsWithTheSameMessageID() async throws {
        let server = try await SMTPTestServer()
        defer { server.stop() }
        let database = try makeDatabase()
        let clock = TestClock()
        let transport = SMTPTransport(configuration: smtp(port: server.port))
        let id = try await enqueue(redemptionMessage(key: "k"), into: database, at: clock.now).id
        let first = try makeWorker(database, transport: transport, clock: clock)
        #expect(await first.runOnce() == 1)
        // The process died after the server accepted the message, before the row was marked:
        // the claim (`sending`) is all that was committed.
        try await database.write { connection in
            _ = try connection.run("UPDATE mail_outbox SET status = 'sending', sent_at = NULL WHERE id = ?", [id])
        }
        let restarted = try makeWorker(database, transport: transport, clock: clock)
        #expect(try await recoverAfterCrash(restarted, database: database, clock: clock) == (database.dialect == .sqlite ? 1 : 0))
        #expect(await restarted.runOnce() == 1)
        let received = try server.received()
        #expect(received.count == 2)
        #expect(messageIDs(received) == ["<\(id)@tollgate.localhost>", "<\(id)@tollgate.localhost>"])
        #expect(try await OutboxStore(database: database).entry(id: id)?.status == .sent)
    }
}
