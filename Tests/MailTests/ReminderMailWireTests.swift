import Foundation
import Storage
import Testing
import TestSupport
@testable import Mail

/// The reminder mail as it leaves: rendered from the real templates and handed to aiosmtpd over
/// a real SMTP conversation (RFC 8058's two headers, the code, the buyer's language); and the
/// outbox's send check, which decides as a message leaves whether it still should.
@Suite struct ReminderMailWireTests {
    static let token = "Qm9vbmRvZ2dsZS1yZW1pbmRlci10b2tlbi0wMTIzNDU"
    static let unsubscribe = "https://pay.example.com/mail/unsubscribe/" + token

    func reminder(key: String, purchase: String, locale: String? = "de") -> OutboxMessage {
        var parameters = [
            "code": "K7QM-4XPD-9RTW-2WTF", "product_name": "Pro Pack", "redeem_url": "https://pay.example.com/redeem/K7QM-4XPD-9RTW-2WTF?locale=de",
            "expiry_text": "30. Juni 2026", "manage_url": "https://pay.example.com/manage?locale=de", "unsubscribe_url": Self.unsubscribe,
            MailComposer.listUnsubscribeParameter: Self.unsubscribe, "purchase_id": purchase, "reminder_number": "1",
            "qr_svg": #"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 29 29"><path d="M4 4h7v7H4z"/></svg>"#
        ]
        if let locale { parameters[MailComposer.localeParameter] = locale }
        return OutboxMessage(idempotencyKey: key, template: "redemption_reminder", recipient: "jane@example.com", parameters: parameters)
    }

    /// A header's value, unfolded.
    static func header(_ name: String, in message: String) -> String? {
        let head = message.components(separatedBy: "\r\n\r\n").first ?? ""
        let unfolded = head.replacingOccurrences(of: "\r\n ", with: " ").replacingOccurrences(of: "\r\n\t", with: " ")
        return unfolded.components(separatedBy: "\r\n").first { $0.lowercased().hasPrefix(name.lowercased() + ":") }
            .map { String($0.dropFirst(name.count + 1)).trimmingCharacters(in: .whitespaces) }
    }

    /// An RFC 2047 `=?UTF-8?B?…?=` header value decoded.
    static func decodedWords(_ value: String) -> String {
        var bytes: [UInt8] = []
        var rest = Substring(value)
        while let start = rest.range(of: "=?UTF-8?B?"), let end = rest[start.upperBound...].range(of: "?=") {
            bytes += Data(base64Encoded: String(rest[start.upperBound..<end.lowerBound])).map(Array.init) ?? []
            rest = rest[end.upperBound...]
        }
        return bytes.isEmpty ? value : String(decoding: bytes, as: UTF8.self)
    }

    @Test("On the wire: List-Unsubscribe with its One-Click post, the code, the QR, in German")
    func reminderOverSMTP() async throws {
        let server = try await SMTPTestServer()
        defer { server.stop() }
        let database = try makeDatabase()
        let clock = TestClock()
        let transport = SMTPTransport(
            configuration: SMTPConfiguration(host: "127.0.0.1", port: server.port, security: .none, heloName: "tollgate.test"))
        let worker = try makeWorker(database, transport: transport, clock: clock)
        try await enqueue(reminder(key: "reminder:p1:0", purchase: "p1"), into: database, at: clock.now)
        #expect(await worker.runOnce() == 1)
        let received = try #require(try server.received().first)
        #expect(Self.header("List-Unsubscribe", in: received) == "<\(Self.unsubscribe)>")
        #expect(Self.header("List-Unsubscribe-Post", in: received) == "List-Unsubscribe=One-Click")
        #expect(Self.decodedWords(try #require(Self.header("Subject", in: received))) == "Ihr Code für Pro Pack wartet noch")
        let body = String(decoding: decodeQP(received), as: UTF8.self)
        #expect(body.contains("K7QM-4XPD-9RTW-2WTF"))
        #expect(body.contains(#"<html lang="de""#))
        #expect(body.contains("Erinnerungen abbestellen"))
        #expect(body.contains(Self.unsubscribe))
        #expect(body.contains("<svg"), "the QR code of the redeem link")
        #expect(received.contains("List-Unsubscribe:\r\n <\(Self.unsubscribe)>\r\n"), "a long URL is folded onto its own line")
    }

    /// Stops reminders of purchase `stop`; throws for purchase `broken`.
    struct StopCheck: OutboxSendCheck {
        struct Broken: Error {}
        func stopReason(template: String, parameters: [String: String]) async throws -> String? {
            guard template == "redemption_reminder" else { return nil }
            if parameters["purchase_id"] == "broken" { throw Broken() }
            return parameters["purchase_id"] == "stop" ? "linked" : nil
        }
    }

    @Test("The send check decides as a message leaves: a stopped one is removed unsent, a failing check retries, other mail passes")
    func sendCheck() async throws {
        let database = try makeDatabase()
        let clock = TestClock()
        let transport = RecordingTransport()
        var configuration = OutboxWorkerConfiguration(retryPolicy: OutboxRetryPolicy(jitter: 0))
        configuration.sendCheck = StopCheck()
        let worker = OutboxWorker(
            database: database, transport: transport, composer: try makeComposer(), configuration: configuration, now: clock.function)
        try await enqueue(reminder(key: "r-stop", purchase: "stop"), into: database, at: clock.now)
        try await enqueue(reminder(key: "r-go", purchase: "go"), into: database, at: clock.now)
        try await enqueue(reminder(key: "r-broken", purchase: "broken"), into: database, at: clock.now)
        var code = redemptionMessage(key: "code-stop")
        code.parameters["purchase_id"] = "stop"
        try await enqueue(code, into: database, at: clock.now)
        await worker.runOnce()
        #expect(Set(transport.sent.map(\.template)) == ["redemption_reminder", "redemption_code"])
        #expect(transport.sent.count == 2)
        #expect(transport.sent.first { $0.template == "redemption_reminder" }?.listUnsubscribe == Self.unsubscribe)
        let rows = try await database.read { connection in
            try connection.query("SELECT idempotency_key, status FROM mail_outbox ORDER BY idempotency_key").map {
                "\(try $0.string("idempotency_key"))=\(try $0.string("status"))"
            }
        }
        #expect(rows == ["code-stop=sent", "r-broken=pending", "r-go=sent"])
    }
}
