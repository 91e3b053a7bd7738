import Domain
import Foundation
import Mail
import Storage
import Testing
import UseCases

/// `RetentionWorker` without HTTP: it deletes exactly what is past its age (API.md "Data over
/// time"), in batches, and keeps everything else.
@Suite("Retention")
struct RetentionTests {
    static let day: TimeInterval = 86_400

    /// Rows of every pruned kind on both sides of their cutoffs (default policy: sessions and
    /// links 30 days after expiry, replies 1 day, mail 30, events 30, webhook ids 90).
    static func seed(_ bench: UseCaseBench) throws {
        let now = bench.now
        let secrets = bench.secrets
        try bench.database.writeSync { c in
            func ago(_ days: Double) -> Date { now.addingTimeInterval(-days * day) }
            func ms(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970 * 1000) }
            let account = try AccountRepository.create(secrets: secrets, on: c, now: ago(200))
            // Refresh tokens live 60 days: issued 100, 95 and 91 days ago they expired over 30 days ago.
            for age in [100.0, 95, 91, 80, 0] {
                _ = try SessionRepository.issue(accountID: account.id, deviceID: nil, on: c, now: ago(age))
            }
            // A session from before time-ordered ids, expired long ago, and one still valid.
            for (id, expiry) in [("ses_zzlegacyold", ago(40)), ("ses_zzlegacynew", ago(-10))] {
                try c.execute(
                    """
                    INSERT INTO sessions (id, account_id, family_id, legacy_access_hash, legacy_refresh_hash, access_expires_at,
                        refresh_expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    [id, account.id, id, id + "-a", id + "-r", ms(expiry), ms(expiry), ms(ago(100))])
            }
            for age in [31.0, 29] { _ = try AuthTokenRepository.issue(.login, accountID: account.id, on: c, now: ago(age)) }
            // Web sessions live 30 days from their last use: these expired 31 and 29 days ago.
            for age in [61.0, 59] { _ = try WebSessionRepository.issue(accountID: account.id, on: c, now: ago(age)) }
            for (key, age) in [("old", 2.0), ("new", 0.5)] {
                try c.execute(
                    """
                    INSERT INTO idempotency_keys (scope, idempotency_key, request_hash, status, content_type, body, created_at)
                    VALUES ('redeem', ?, 'h', 200, 'application/json', ?, ?)
                    """,
                    [key, [UInt8(0)], ms(ago(age))])
            }
            for (id, age) in [("evt_old", 91.0), ("evt_new", 89)] {
                try c.execute(
                    "INSERT INTO webhook_events (source, event_id, event_type, received_at) VALUES ('stripe', ?, 'invoice.paid', ?)",
                    [id, ms(ago(age))])
            }
            for (key, age) in [("purchase:old", 2.0), ("purchase:new", 0.001)] {
                try c.execute("INSERT INTO resend_throttle (throttle_key, last_sent_at) VALUES (?, ?)", [key, ms(ago(age))])
            }
            // Events: old and delivered (goes), old with a failed delivery (stays for operators),
            // recent and delivered (stays).
            for (id, age, status) in [("e_old_done", 31.0, "delivered"), ("e_old_failed", 31, "failed"), ("e_new_done", 10, "delivered")] {
                try c.execute(
                    """
                    INSERT INTO events (id, type, account_id, sequence_scope, sequence, occurred_at, body, created_at)
                    VALUES (?, 'account.created', NULL, ?, 1, ?, '{}', ?)
                    """,
                    [id, "scope-" + id, ms(ago(age)), ms(ago(age))])
                try c.execute(
                    """
                    INSERT INTO event_deliveries (id, event_id, endpoint_id, status, attempts, next_attempt_at, deadline_at, created_at, updated_at)
                    VALUES (?, ?, 'ep', ?, 1, 0, 0, ?, ?)
                    """,
                    ["d-" + id, id, status, ms(ago(age)), ms(ago(age))])
            }
            // Mail: sent 31 days ago (goes), still pending from 31 days ago (stays), sent yesterday (stays).
            for (key, age, sent) in [("m-old-sent", 31.0, true), ("m-old-pending", 31, false), ("m-new-sent", 1, true)] {
                let message = OutboxMessage(idempotencyKey: key, template: "redemption_code", recipient: "a@example.com", parameters: [:])
                guard case .enqueued(let id) = try Outbox.enqueue(message, on: c, now: ago(age)) else { throw Missing() }
                if sent { try c.execute("UPDATE mail_outbox SET status = 'sent', sent_at = created_at WHERE id = ?", [id]) }
            }
        }
    }

    /// The console's sessions and the reminders' unsubscribe tokens on both sides of their cutoffs:
    /// sessions created 31 days ago (ended 30.5 days ago at the latest: goes) and 30.2 days ago
    /// (stays); tokens 31 days old of a purchase with no reminder left (goes) and of one whose
    /// reminder is still due (stays), and a 29-day-old one (stays).
    static func seedThisRound(_ bench: UseCaseBench) throws {
        let (done, _) = try bench.paidPurchase("sub_done")
        let (due, _) = try bench.paidPurchase("sub_due")
        let now = bench.now
        try bench.database.writeSync { c in
            func ago(_ days: Double) -> Date { now.addingTimeInterval(-days * day) }
            try c.execute(
                "INSERT INTO operators (id, email, role, created_at, updated_at) VALUES ('op_1', 'ada@example.com', 'admin', 0, 0)")
            for age in [31.0, 30.2] { _ = try ConsoleSessionRepository.issue(operatorID: "op_1", on: c, now: ago(age)) }
            try c.execute("UPDATE buyer_journeys SET reminder_due_at = NULL WHERE purchase_id = ?", [done.id])
            try c.execute("UPDATE buyer_journeys SET reminder_due_at = ? WHERE purchase_id = ?", [Timestamp.milliseconds(now) + 1, due.id])
            for (purchase, age) in [(done, 31.0), (due, 31), (done, 29)] {
                _ = try ReminderUnsubscribeRepository.issue(purchaseID: purchase.id, on: c, now: ago(age))
            }
        }
    }

    func count(_ bench: UseCaseBench, _ table: String) throws -> Int {
        try bench.database.readSync { try $0.queryOne("SELECT COUNT(*) AS n FROM \(table)")?.int("n") ?? -1 }
    }

    @Test("A pass deletes exactly the rows past their age, in batches, and counts them; a second pass deletes nothing")
    func deletesWhatIsPastItsAge() async throws {
        let bench = try UseCaseBench()
        try Self.seed(bench)
        try Self.seedThisRound(bench)
        let worker = RetentionWorker(
            database: bench.database, policy: Retention.Policy(),
            configuration: RetentionWorker.Configuration(batchSize: 2, interval: .seconds(3600), pause: .zero), logger: .disabled,
            now: bench.nowFunction)
        let deleted = await worker.sweep()
        #expect(
            deleted == [
                "sessions": 4, "web_sessions": 1, "auth_tokens": 1, "idempotency_keys": 1, "events": 1, "webhook_events": 1,
                "resend_throttle": 1, "mail_outbox": 1, "console_sessions": 1, "reminder_unsubscribes": 1
            ])
        #expect(try count(bench, "console_sessions") == 1, "the one created 30.2 days ago may have ended less than 30 days ago")
        #expect(try count(bench, "reminder_unsubscribes") == 2, "the 29-day-old token, and the one whose purchase still has a reminder due")
        #expect(try count(bench, "sessions") == 3, "80 and 0 days old, and the legacy one still valid")
        #expect(try bench.database.readSync { try $0.queryOne("SELECT COUNT(*) AS n FROM sessions WHERE id = 'ses_zzlegacynew'")?.int("n") } == 1)
        #expect(try count(bench, "auth_tokens") == 1)
        #expect(try count(bench, "web_sessions") == 1, "the one that expired 29 days ago")
        #expect(try count(bench, "idempotency_keys") == 1)
        #expect(
            try bench.database.readSync { c in try c.query("SELECT id FROM events ORDER BY id").map { try $0.string("id") } }
                == ["e_new_done", "e_old_failed"])
        #expect(try count(bench, "event_deliveries") == 2)
        #expect(try count(bench, "webhook_events") == 1)
        #expect(try count(bench, "resend_throttle") == 1)
        #expect(
            try bench.database.readSync { c in
                try c.query("SELECT idempotency_key FROM mail_outbox ORDER BY idempotency_key").map { try $0.string("idempotency_key") }
            }
                == ["m-new-sent", "m-old-pending"])
        #expect(try count(bench, "accounts") == 1, "accounts are never deleted by retention")

        let stats = worker.stats.snapshot()
        #expect(stats.deleted == deleted)
        #expect(stats.passes == 1)
        #expect(stats.batchSeconds.count == 12, "batches of 2: three for sessions (2, 2, 0), one for each other table")

        let second = await worker.sweep()
        #expect(second.values.allSatisfy { $0 == 0 })
    }

    @Test("Shorter retention days in the policy move the cutoffs")
    func policyMovesCutoffs() async throws {
        let bench = try UseCaseBench()
        try Self.seed(bench)
        let worker = RetentionWorker(
            database: bench.database, policy: Retention.Policy(sessionsDays: 1, mailDays: 1, eventsDays: 1, webhookIDsDays: 1),
            configuration: RetentionWorker.Configuration(batchSize: 100, pause: .zero), logger: .disabled, now: bench.nowFunction)
        let deleted = await worker.sweep()
        #expect(deleted["sessions"] == 5, "everything expired over a day ago: 100, 95, 91, 80 days and the old legacy one")
        #expect(deleted["auth_tokens"] == 2)
        #expect(deleted["webhook_events"] == 2)
        #expect(deleted["events"] == 2)
        #expect(deleted["mail_outbox"] == 1, "the pending message stays whatever its age; yesterday's sent one is not past a day yet")
    }
}
