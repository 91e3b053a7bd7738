import Foundation
import Storage
import Testing
import TestSupport

/// Reminder mails from two `tollgate serve` processes on one PostgreSQL database, one of them
/// killed with SIGKILL between the reminders and started again: each purchase's reminders go out
/// exactly once each (the journeys are claimed `FOR UPDATE SKIP LOCKED`, each reminder is one
/// outbox row by its key, and the outbox sends a row from one instance).
@Suite(
    "Reminders from two instances on one PostgreSQL database",
    .enabled(if: TestDatabaseBackend.isPostgres, "needs POSTGRES_TEST_URL: scripts/test-postgres"))
struct TwoInstancesRemindersTests {
    static let sessions = 12

    /// The reminder mails an instance wrote (`<outbox id>.eml` carrying List-Unsubscribe).
    static func reminderFiles(_ instance: TwoInstancesTests.Instance) -> Set<String> {
        instance.mailFiles.filter { name in
            let text = (try? String(contentsOfFile: instance.directory.path + "/mail/" + name, encoding: .utf8)) ?? ""
            return text.contains("List-Unsubscribe-Post: List-Unsubscribe=One-Click")
        }
    }

    @Test("Two reminders per unredeemed purchase, each sent once across both instances, one of them killed and restarted", .timeLimit(.minutes(5)))
    func exactlyOnce() async throws {
        let url = try #require(try TestDatabaseBackend.freshPostgresURL())
        let stripe = try FakeStripe(webhookSecret: TwoInstancesTests.webhookSecret, knownPrices: ["price_monthly"])
        let extra: [String: Any] = ["redemption": ["reminders": [2, 8]]]
        var a = try await TwoInstancesTests.start(url: url, stripe: stripe, extra: extra)
        let b = try await TwoInstancesTests.start(url: url, stripe: stripe, extra: extra)
        defer { kill(a.process.pid, SIGKILL); kill(b.process.pid, SIGKILL) }
        let http = LoopbackClient()

        // Paid checkouts no app user started (nothing links them), completed by webhooks to either.
        for index in 0..<Self.sessions {
            let port = index.isMultiple(of: 2) ? a.port : b.port
            let (status, headers, _) = try await http.send("GET", port, "/checkout/start?plan=monthly&email=buyer\(index)%40example.com")
            #expect(status == 303)
            let id = String(try #require((headers["Location"] ?? headers["location"])?.split(separator: "/").last))
            _ = try stripe.completeSession(id: id, email: "buyer\(index)@example.com", periodEnd: Date().addingTimeInterval(30 * 86400))
            let event = stripe.webhook(type: "checkout.session.completed", object: stripe.sessionObject(id: id)!, created: Date(), id: "evt_\(id)")
            let (answer, _, _) = try await http.send(
                "POST", index.isMultiple(of: 3) ? a.port : b.port, "/webhooks/stripe",
                headers: ["Stripe-Signature": event.signatureHeader, "Content-Type": "application/json"], body: event.body)
            #expect(answer == 200)
        }

        // The first reminders fall due after 2 s; A is killed after them, before the second ones.
        let database = try PostgresDatabase(url: url, maxConnections: 2)
        defer { database.close() }
        func count(_ sql: String) throws -> Int { try database.readSync { try $0.queryOne(sql)?.int("n") ?? -1 } }
        for _ in 0..<300 where try count("SELECT count(*) AS n FROM mail_outbox WHERE template = 'redemption_reminder'") < Self.sessions {
            try await Task.sleep(for: .milliseconds(100))
        }
        kill(a.process.pid, SIGKILL)
        #expect(try await a.process.finish().status == SIGKILL)
        (a.process, a.port) = try await ServeTests.startServer(["serve", "--config", a.config])

        // Every reminder sent (what the killed one had claimed, the other sends after its lease).
        let expected = 2 * Self.sessions
        var sent = 0
        for _ in 0..<1200 {
            sent = try count("SELECT count(*) AS n FROM mail_outbox WHERE template = 'redemption_reminder' AND status = 'sent'")
            if sent == expected { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(try count("SELECT count(*) AS n FROM mail_outbox WHERE template = 'redemption_reminder'") == expected, "two reminders per purchase")
        #expect(sent == expected)
        #expect(try count("SELECT count(*) AS n FROM buyer_journeys WHERE reminder_due_at IS NOT NULL") == 0)
        let retried = try count("SELECT count(*) AS n FROM mail_outbox WHERE template = 'redemption_reminder' AND attempts > 1")
        let files = Self.reminderFiles(a).union(Self.reminderFiles(b))
        let both = Self.reminderFiles(a).intersection(Self.reminderFiles(b))
        #expect(files.count == expected, "one file per reminder across both instances")
        #expect(both.count <= retried, "a reminder went out from both without a retry: \(both)")
    }
}
