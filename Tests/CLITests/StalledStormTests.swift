import Foundation
import Storage
import Synchronization
import Testing
import TestSupport

/// The storm production saw (API.md, "Limits that protect everyone"): webhooks arrive while the
/// database is slow, the senders give up on connections that get no answer in time and send
/// again on new ones. Each abandoned connection's request is still being answered; before, it
/// kept its slot of the sender's cap (256) until then, and the sender, holding never more than
/// 16 connections, got 503s. Now a connection the sender has closed frees its slot at once.
@Suite(
    "Webhook storm while the database stalls",
    .enabled(if: TestDatabaseBackend.isPostgres, "needs POSTGRES_TEST_URL: scripts/test-postgres"))
struct StalledStormTests {
    @Test("Senders that give up on connections while writes wait are never turned away")
    func sendersThatGiveUpAreNeverTurnedAway() async throws {
        let url = try #require(try TestDatabaseBackend.freshPostgresURL())
        let stripe = try FakeStripe(webhookSecret: WebhookStormTests.secret, knownPrices: ["price_lifetime"])
        let directory = try TemporaryDirectory()
        let (process, port) = try await ServeTests.startServer(
            ["serve", "--config", try WebhookStormTests.config(directory, stripe: stripe, database: url)])
        defer { kill(process.pid, SIGKILL) }
        // 400 deliveries, as in the production report.
        let deliveries = try await WebhookStormTests.deliveries(ports: [port], stripe: stripe, rounds: 4)

        // A write elsewhere (another instance, a slow transaction) holds a lock every webhook's
        // write waits for (its event log's table, against inserts) for 6 s.
        let database = try PostgresDatabase(url: url, maxConnections: 2)
        defer { database.close() }
        let holding = Atomic<Bool>(false)
        async let stall: Void = offPool {
            try database.writeSync(isolation: .readCommitted) { connection in
                try connection.execute("LOCK TABLE webhook_events IN SHARE ROW EXCLUSIVE MODE")
                holding.store(true, ordering: .releasing)
                Thread.sleep(forTimeInterval: 6)
            }
        }
        while !holding.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(10)) }

        // Senders wait 0.2 s for an answer, then close and send again: about 80 abandoned
        // connections a second, far past the cap of 256 before the lock is released.
        let started = Date()
        let outcome = await WebhookStorm(senders: WebhookStormTests.senders, patience: 0.2, attempts: 200).run(deliveries, ports: [port])
        try await stall
        let figures =
            "\(deliveries.count) deliveries in \(String(format: "%.1f", outcome.finished.timeIntervalSince(started))) s: "
            + "\(outcome.statuses), \(outcome.timeouts) connections given up, at most \(outcome.mostHeld) held by the senders"
        print("stalled webhook storm: \(figures)")

        #expect(outcome.timeouts > 256, "the stall made the senders abandon more connections than the cap: \(figures)")
        #expect(outcome.statuses[503] == nil, "no sender is turned away: \(figures)")
        #expect(outcome.undelivered == 0 && outcome.statuses[200] == deliveries.count, "every delivery answered 200 in the end: \(figures)")
    }
}
