import Foundation
import Glibc
import Logging
import Storage
import Testing
@testable import Mail

/// The outbox: transactional enqueue, idempotency, the worker's schedule and crash recovery.
@Suite struct OutboxTests {
    struct CausingChangeFailed: Error {}

    @Test func enqueueIsPartOfTheCallersTransaction() async throws {
        let database = try makeDatabase()
        let clock = TestClock()
        try await database.write { connection in
            try connection.execute("CREATE TABLE purchases (id TEXT PRIMARY KEY)")
        }
        await #expect(throws: CausingChangeFailed.self) {
            try await database.write { connection in
                try connection.execute("INSERT INTO purchases (id) VALUES ('p1')")
                _ = try Outbox.enqueue(redemptionMessage(key: "redemption:p1"), on: connection, now: clock.now)
                throw CausingChangeFailed()
            }
        }
        #expect(try await OutboxStore(database: database).outboxEntries(status: nil, limit: 10).isEmpty)

        let result = try await database.write { connection in
            try connection.execute("INSERT INTO purchases (id) VALUES ('p1')")
            return try Outbox.enqueue(redemptionMessage(key: "redemption:p1"), on: connection, now: clock.now)
        }
        let entries = try await OutboxStore(database: database).outboxEntries(status: .pending, limit: 10)
        #expect(entries.map(\.id) == [result.id])
        #expect(entries.first?.maskedRecipient == "j\u{2022}\u{2022}\u{2022}@e\u{2022}\u{2022}\u{2022}.com")
        #expect(entries.first?.messageID == "<\(result.id)@tollgate.localhost>")
    }

    @Test func sameIdempotencyKeyAddsNoSecondRow() async throws {
        let database = try makeDatabase()
        let clock = TestClock()
        let first = try await enqueue(redemptionMessage(key: "redemption:p2"), into: database, at: clock.now)
        let second = try await enqueue(redemptionMessage(key: "redemption:p2", code: "OTHER"), into: database, at: clock.now)
        guard case .enqueued = first else { Issue.record("first enqueue was \(first)"); return }
        #expect(second == .duplicate(id: first.id))
        let count = try await database.read { try $0.queryOne("SELECT COUNT(*) AS n FROM mail_outbox")?.int("n") }
        #expect(count == 1)
    }

    @Test func deliversDueMessagesRenderedFromTheTemplates() async throws {
        let database = try makeDatabase()
        let clock = TestClock()
        let transport = RecordingTransport()
        let worker = try makeWorker(database, transport: transport, clock: clock)
        let id = try await enqueue(redemptionMessage(key: "k"), into: database, at: clock.now).id
        #expect(await worker.runOnce() == 1)
        let sent = try #require(transport.sent.first)
        #expect(sent.subject == "Your Pro Pack code from Tollgate Demo")
        #expect(sent.textBody.contains("    K7QM-4XPD-9RTW\n"))
        #expect(sent.textBody.contains("https://tollgate.test/redeem?code=K7QM-4XPD-9RTW&x=1"))
        let html = try #require(sent.htmlBody)
        // The template engine escapes `=` and `&` in attribute values; browsers decode both.
        #expect(html.contains("href=\"https://tollgate.test/redeem?code&#61;K7QM-4XPD-9RTW&amp;x&#61;1\""))
        #expect(html.contains(">K7QM-4XPD-9RTW</p>"))
        #expect(html.contains("<title>Your Pro Pack code from Tollgate Demo</title>"))
        #expect(!html.contains("{{"))
        #expect(sent.to.displayName == "Jane Doe")
        let entry = try #require(try await OutboxStore(database: database).entry(id: id))
        #expect(entry.status == .sent)
        #expect(entry.attempts == 1)
        #expect(entry.sentAt == clock.now)
        #expect(await worker.runOnce() == 0)  // nothing due twice
    }

    @Test func everyTemplateRendersWithASubjectAndNoLeftoverTags() throws {
        let composer = try makeComposer()
        let parameters = [
            "code": "K7QM-4XPD-9RTW", "product_name": "Pro", "redeem_url": "https://t.test/r", "expiry_text": "in 1 hour",
            "masked_email": "j***@example.com", "confirm_url": "https://t.test/c", "set_password_url": "https://t.test/p",
            "login_url": "https://t.test/l"
        ]
        for template in ["redemption_code", "code_resent", "email_confirmation", "set_password", "login_link"] {
            let message = try composer.compose(
                outboxID: "x", template: template, recipient: "a@b.test", recipientName: nil, parameters: parameters,
                messageID: "<x@t.test>", date: Date())
            #expect(message.subject.contains("Tollgate Demo"), "\(template)")
            #expect(!message.textBody.contains("Subject:"), "\(template)")
            #expect(!message.textBody.hasPrefix("\n"), "\(template)")
            let html = try #require(message.htmlBody, "\(template)")
            #expect(html.hasPrefix("<!DOCTYPE html>"), "\(template)")
            #expect(html.contains("https://t.test/"), "\(template)")
            for body in [message.textBody, html] {
                #expect(!body.contains("{{") && !body.contains("}}"), "\(template)")
            }
            _ = try message.rendered()
        }
    }

    @Test func transientFailuresBackOffExponentiallyUpToSixHours() async throws {
        let database = try makeDatabase()
        let clock = TestClock()
        let transport = RecordingTransport()
        let worker = try makeWorker(database, transport: transport, clock: clock)
        let id = try await enqueue(redemptionMessage(key: "k"), into: database, at: clock.now).id
        let store = OutboxStore(database: database)
        var waits: [TimeInterval] = []
        for _ in 0..<12 {
            transport.failNext([.transient("451 4.3.0 try again later", replyCode: 451)])
            let attemptTime = clock.now
            #expect(await worker.runOnce() == 1)
            let entry = try #require(try await store.entry(id: id))
            #expect(entry.status == .pending)
            #expect(entry.lastError == "451 4.3.0 try again later")
            let wait = entry.nextAttemptAt.timeIntervalSince(attemptTime)
            waits.append(wait)
            // Not due yet one second before.
            clock.advance(by: wait - 1)
            #expect(await worker.runOnce() == 0)
            clock.advance(by: 1)
        }
        #expect(waits == [60, 120, 240, 480, 960, 1920, 3840, 7680, 15360, 21600, 21600, 21600])
        #expect(await worker.runOnce() == 1)
        #expect(try await store.entry(id: id)?.status == .sent)
        #expect(try await store.entry(id: id)?.attempts == 13)
    }

    @Test func jitterKeepsWaitsWithinTwentyPercent() {
        let low = OutboxRetryPolicy(random: { 0 })
        let high = OutboxRetryPolicy(random: { 0.999999 })
        #expect(low.delay(afterAttempt: 1) == .seconds(48))
        #expect(abs(Double(high.delay(afterAttempt: 1).milliseconds) - 72_000) <= 1)
        #expect(low.delay(afterAttempt: 30) == .seconds(6 * 3600 * 8 / 10))
        let real = OutboxRetryPolicy()
        for attempt in 1...20 {
            let base = min(60.0 * pow(2, Double(attempt - 1)), 21600) * 1000
            let wait = Double(real.delay(afterAttempt: attempt).milliseconds)
            #expect(wait >= base * 0.8 - 1 && wait <= base * 1.2)
        }
    }

    @Test func givesUpAfterAboutThreeDays() async throws {
        let database = try makeDatabase()
        let clock = TestClock()
        let transport = RecordingTransport()
        let worker = try makeWorker(database, transport: transport, clock: clock)
        let start = clock.now
        let id = try await enqueue(redemptionMessage(key: "k"), into: database, at: clock.now).id
        let store = OutboxStore(database: database)
        var attempts = 0
        while attempts < 100 {
            transport.failNext([.transient("421 4.7.0 too busy", replyCode: 421)])
            #expect(await worker.runOnce() == 1)
            attempts += 1
            let entry = try #require(try await store.entry(id: id))
            if entry.status == .failed {
                #expect(entry.lastError?.contains("421 4.7.0 too busy") == true)
                #expect(entry.lastError?.contains("gave up after \(attempts) attempts") == true)
                break
            }
            clock.advance(by: max(0, entry.nextAttemptAt.timeIntervalSince(clock.now)))
        }
        let elapsed = clock.now.timeIntervalSince(start)
        #expect(elapsed > 3 * 86400 - 6 * 3600 && elapsed <= 3 * 86400)
        #expect(attempts > 15 && attempts < 25)
        let failed = try await store.outboxEntries(status: .failed, limit: 10)
        #expect(failed.map(\.id) == [id])
        #expect(transport.sent.isEmpty)
    }

    @Test func permanentFailureAndInjectionAreFailedAndVisibleToOperators() async throws {
        let database = try makeDatabase()
        let clock = TestClock()
        let transport = RecordingTransport()
        let worker = try makeWorker(database, transport: transport, clock: clock)
        transport.failNext([.permanent("550 5.1.1 mailbox unavailable", replyCode: 550)])
        let rejected = try await enqueue(redemptionMessage(key: "a"), into: database, at: clock.now).id
        let injected = try await enqueue(
            redemptionMessage(key: "b", recipient: "x@example.com\r\nBcc: victim@example.com"), into: database, at: clock.now
        ).id
        var injectedParameter = redemptionMessage(key: "c")
        injectedParameter.parameters["product_name"] = "Pro\nBcc: victim@example.com"
        let injectedSubject = try await enqueue(injectedParameter, into: database, at: clock.now).id
        #expect(await worker.runOnce() == 3)

        let store = OutboxStore(database: database)
        let failed = try await store.outboxEntries(status: .failed, limit: 10)
        #expect(Set(failed.map(\.id)) == [rejected, injected, injectedSubject])
        let byID = Dictionary(uniqueKeysWithValues: failed.map { ($0.id, $0) })
        #expect(byID[rejected]?.lastError == "550 5.1.1 mailbox unavailable")
        #expect(byID[injected]?.lastError?.contains("line break") == true)
        #expect(byID[injectedSubject]?.lastError?.contains("line break") == true)
        #expect(byID[rejected]?.attempts == 1)
        #expect(transport.sent.isEmpty)
        // The operator view never carries codes or full addresses.
        let all = try await store.outboxEntries(status: nil, limit: 10)
        #expect(all.count == 3)
        for entry in all {
            #expect(!"\(entry)".contains("K7QM"))
            #expect(!"\(entry)".contains("jane@"))
        }
    }

    @Test func aSendingRowLeftByACrashIsRetried() async throws {
        let database = try makeDatabase()
        let clock = TestClock()
        let id = try await enqueue(redemptionMessage(key: "k"), into: database, at: clock.now).id
        // The crashed process had claimed it.
        try await database.write { connection in
            _ = try connection.run("UPDATE mail_outbox SET status = 'sending', attempts = 1 WHERE id = ?", [id])
        }
        let transport = RecordingTransport()
        let worker = try makeWorker(database, transport: transport, clock: clock)
        #expect(await worker.runOnce() == 0)  // within its lease: another delivery may be in progress
        clock.advance(by: 44)
        #expect(await worker.runOnce() == 0, "the 45-second lease has not run out")
        clock.advance(by: 2)
        #expect(await worker.runOnce() == 1)  // lease expired
        #expect(transport.sent.count == 1)
        #expect(try await OutboxStore(database: database).entry(id: id)?.status == .sent)

        // At start-up every `sending` row is recovered at once.
        let second = try await enqueue(redemptionMessage(key: "k2"), into: database, at: clock.now).id
        try await database.write { connection in
            _ = try connection.run(
                "UPDATE mail_outbox SET status = 'sending', updated_at = ? WHERE id = ?",
                [Int64(clock.now.timeIntervalSince1970 * 1000), second])
        }
        let restarted = try makeWorker(database, transport: transport, clock: clock)
        #expect(try await recoverAfterCrash(restarted, database: database, clock: clock) == (database.dialect == .sqlite ? 1 : 0))
        #expect(await restarted.runOnce() == 1)
        #expect(transport.sent.map(\.messageID) == ["<\(id)@tollgate.localhost>", "<\(second)@tollgate.localhost>"])
    }

    @Test func runDeliversPromptlyOnWakeAndStops() async throws {
        let database = try makeDatabase()
        let transport = RecordingTransport()
        let worker = OutboxWorker(
            database: database, transport: transport, composer: try makeComposer(),
            configuration: OutboxWorkerConfiguration(pollInterval: .seconds(3600)))
        let running = Task { await worker.run() }
        try await enqueue(redemptionMessage(key: "k"), into: database, at: Date())
        await worker.wake()
        // Far below the hour-long poll interval, and long enough for a cooperative pool that
        // hundreds of parallel tests' fixtures keep busy (on PostgreSQL they connect and migrate).
        let deadline = Date().addingTimeInterval(120)
        while transport.sent.isEmpty && Date() < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(transport.sent.count == 1)
        await worker.stop()
        await running.value  // returns although the poll interval is an hour
    }

    @Test func fileTransportWritesOneFilePerOutboxRowAndOverwritesOnRetry() async throws {
        let directory = try makeTemporaryDirectory() + "/outbox"
        let transport = FileTransport(directory: directory)
        let message = MailMessage(
            outboxID: "0123abcd", template: "t", from: try MailAddress("a@b.test"), to: try MailAddress("c@d.test"),
            subject: "Hi", textBody: "Body", htmlBody: nil, messageID: "<0123abcd@b.test>", date: Date())
        try await transport.send(message)
        try await transport.send(message)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory)
        #expect(files == ["0123abcd.eml"])
        let text = try String(contentsOfFile: directory + "/0123abcd.eml", encoding: .utf8)
        #expect(text.contains("Message-ID: <0123abcd@b.test>\r\n"))
        var bad = message
        bad.outboxID = "../escape"
        await #expect(throws: MailError.self) { try await transport.send(bad) }
    }

    @Test("A mail file is 0600 under a permissive umask (it holds an address and often a code)")
    func fileTransportWritesPrivateFiles() async throws {
        let previous = umask(0)
        defer { umask(previous) }
        let directory = try makeTemporaryDirectory() + "/outbox"
        let transport = FileTransport(directory: directory)
        let message = MailMessage(
            outboxID: "0600mode", template: "t", from: try MailAddress("a@b.test"), to: try MailAddress("c@d.test"),
            subject: "Hi", textBody: "Body", htmlBody: nil, messageID: "<0600mode@b.test>", date: Date())
        try await transport.send(message)
        var info = stat()
        #expect(stat(directory + "/0600mode.eml", &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
    }

    @Test func logTransportLogsNoBodyAndMasksTheRecipient() async throws {
        let sink = MemoryLogSink()
        let transport = try MailTransportConfiguration(kind: "log").makeTransport(logger: Logger(sink: sink))
        let message = MailMessage(
            outboxID: "id1", template: "redemption_code", from: try MailAddress("a@b.test"),
            to: try MailAddress("jane@example.com"), subject: "Your code K7QM", textBody: "K7QM-4XPD", htmlBody: nil,
            messageID: "<id1@b.test>", date: Date())
        try await transport.send(message)
        let line = try #require(sink.lines.first)
        #expect(line.contains("\"to\":\"j\u{2022}\u{2022}\u{2022}@e\u{2022}\u{2022}\u{2022}.com\""))
        #expect(line.contains("\"template\":\"redemption_code\""))
        #expect(line.contains("<id1@b.test>"))
        #expect(!line.contains("K7QM"))
        #expect(throws: MailError.self) { try MailTransportConfiguration(kind: "carrier-pigeon") }
        #expect(throws: MailError.self) { try MailTransportConfiguration(kind: "file") }
    }
}
