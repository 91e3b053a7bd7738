import Foundation
import Storage
import Testing
import TestSupport

/// The upgrade from the previous release on PostgreSQL, with real processes (docs/OPERATING.md "Upgrading").
/// `scripts/test-upgrade` builds the previous release's `tollgate` from a worktree of its commit
/// and names it in TOLLGATE_PREVIOUS_BINARY (its sources in TOLLGATE_PREVIOUS_ROOT).
///
/// The previous release (0.2.0) may serve beside this one's schema (`TollgateReleases`), so the
/// upgrade is the rolling one, under a webhook storm: 0.2.0 serves a third of the storm on a fresh
/// database while this release starts beside it on the same database (it migrates); the second
/// third goes to both, and 0.2.0 gets SIGTERM in the middle of it; this release takes the last
/// third and every delivery again (Stripe retries what it could not deliver). This release
/// answers no 5xx, 0.2.0 none but the 503s of its own stop; every event is applied once, every
/// purchase is there. A 0.2.0 instance started again on the migrated schema serves beside; this
/// release refuses a schema whose release does not let it run beside, naming both.
@Suite("Upgrade on PostgreSQL: the previous release's binary beside this one, under a webhook storm")
struct RollingUpgradeTests {
    static let secret = "whsec_upgrade"
    static let rounds = 4

    static var previousBinary: String? { ProcessInfo.processInfo.environment["TOLLGATE_PREVIOUS_BINARY"] }
    static var previousRoot: String? { ProcessInfo.processInfo.environment["TOLLGATE_PREVIOUS_ROOT"] }

    @Test(
        "0.2.0 serves, this release starts beside it and migrates, both serve, 0.2.0 stops on SIGTERM: no 5xx but 0.2.0's stop's, every event once",
        .enabled(
            if: TestDatabaseBackend.isPostgres && previousBinary != nil, "needs scripts/test-upgrade (PostgreSQL and the previous release's binary)"))
    func upgradeUnderStorm() async throws {
        let previous = try #require(Self.previousBinary), previousRoot = try #require(Self.previousRoot)
        let url = try #require(try TestDatabaseBackend.freshPostgresURL())
        let stripe = try FakeStripe(webhookSecret: Self.secret, knownPrices: ["price_lifetime"])
        let oldDirectory = try TemporaryDirectory(), newDirectory = try TemporaryDirectory()
        let oldConfig = try Self.config(oldDirectory, stripe: stripe, url: url, root: previousRoot)
        let newConfig = try Self.config(newDirectory, stripe: stripe, url: url, root: ChildProcess.packageRoot)
        let started = Date()

        // The previous release on a fresh database: it opens and pays the checkouts.
        let (old, oldPort) = try await ServeTests.startServer(["serve", "--config", oldConfig], binary: previous)
        defer { kill(old.pid, SIGKILL) }
        let deliveries = try await WebhookStormTests.deliveries(ports: [oldPort], stripe: stripe, rounds: Self.rounds)
        let third = deliveries.count / 3
        let (first, second, last) = (
            Array(deliveries[..<third]), Array(deliveries[third..<(2 * third)]), Array(deliveries[(2 * third)...])
        )
        let storm = WebhookStorm(senders: 8, patience: 10, attempts: 3)

        // 1. 0.2.0 takes the first third while this release starts beside it and migrates.
        let firstRun = Task { await storm.run(first, ports: [oldPort]) }
        let (new, newPort) = try await ServeTests.startServer(["serve", "--config", newConfig])
        defer { kill(new.pid, SIGKILL) }
        let firstOutcome = await firstRun.value
        #expect(firstOutcome.undelivered == 0 && firstOutcome.statuses == [200: first.count], "0.2.0 answered \(firstOutcome.statuses)")
        #expect(try await Self.counts(url)["releases"] == 2, "this release migrated and recorded itself beside 0.2.0")

        // 2. Both take the second third; 0.2.0 gets SIGTERM once it has applied a quarter of it.
        let appliedBefore = try await Self.counts(url)["events seen", default: 0]
        let secondRun = Task { await storm.run(second, ports: [oldPort, newPort]) }
        while try await Self.counts(url)["events seen", default: 0] < appliedBefore + second.count / 4, Date().timeIntervalSince(started) < 120 {
            try await Task.sleep(for: .milliseconds(20))
        }
        kill(old.pid, SIGTERM)
        let secondOutcome = await secondRun.value
        let stopped = try await old.finish()
        #expect(stopped.status == 0, "the previous release stops cleanly on SIGTERM: \(stopped.stderr.suffix(2_000))")
        print("upgrade: both answered \(secondOutcome.statusesByPort) by port (0.2.0 on \(oldPort); 0: connection refused after SIGTERM)")
        #expect(secondOutcome.statusesByPort[newPort, default: [:]].keys.allSatisfy { $0 == 200 }, "this release: \(secondOutcome.statusesByPort)")
        // 0.2.0's stop turned away, with a 503, connections it accepted in the instant it stopped
        // (this release closes its listener first: HTTPServerStopTests); Stripe retries those.
        // It answered no other 5xx.
        #expect(
            secondOutcome.statusesByPort[oldPort, default: [:]].keys.allSatisfy { $0 == 200 || $0 == 0 || $0 == 503 }
                && secondOutcome.serverErrorsByPort[oldPort, default: []].allSatisfy { $0.contains("The server is shutting down.") },
            "0.2.0: \(secondOutcome.statusesByPort), \(secondOutcome.serverErrorsByPort)")
        #expect(secondOutcome.statuses[200, default: 0] >= second.count / 4, "at least the quarter applied before SIGTERM: \(secondOutcome.statuses)")
        let midway = try await Self.counts(url)
        #expect(
            midway["purchases"] == midway["paid sessions"] && midway["purchases"] == midway["purchases with one code"],
            "each purchase is whole: its checkout paid, one code: \(midway)")

        // 3. This release alone: the last third, then every delivery again.
        let lastOutcome = await storm.run(last + first + second, ports: [newPort])
        #expect(lastOutcome.undelivered == 0 && lastOutcome.statuses == [200: deliveries.count], "this release answered \(lastOutcome.statuses)")
        let counts = try await Self.counts(url)
        print("upgrade: the database holds \(counts), \(String(format: "%.1f", Date().timeIntervalSince(started))) s in all")
        #expect(
            counts == [
                "purchases": WebhookStormTests.sessions, "codes": WebhookStormTests.sessions, "events seen": deliveries.count,
                "purchases with one code": WebhookStormTests.sessions, "paid sessions": WebhookStormTests.sessions, "releases": 2
            ], "every event applied once, every purchase there")

        // 0.2.0 started again on the migrated schema serves beside this release (a replaced instance restarting).
        let (again, againPort) = try await ServeTests.startServer(["serve", "--config", oldConfig], binary: previous)
        defer { kill(again.pid, SIGKILL) }
        let replay = await storm.run(Array(deliveries.prefix(40)), ports: [againPort, newPort])
        #expect(replay.statuses == [200: 40], "\(replay.statuses)")
        kill(again.pid, SIGTERM)
        _ = try await again.finish()
        #expect(try await Self.counts(url)["events seen"] == deliveries.count, "repeats apply nothing")

        // A schema a later release migrated, which runs beside 8.0.0 or later only: this release refuses it, naming both.
        kill(new.pid, SIGTERM)
        _ = try await new.finish()
        try await Self.execute(url, "INSERT INTO schema_releases (release, oldest_beside, recorded_at) VALUES ('9.0.0', '8.0.0', 0)")
        let tooOld = ChildProcess("tollgate", ["serve", "--config", newConfig])
        try tooOld.start()
        let refusal = try await tooOld.finish()
        #expect(refusal.status != 0, "\(refusal.stderr.suffix(2_000))")
        #expect(
            refusal.stderr.contains("too old for the database: its schema is release 9.0.0's")
                && refusal.stderr.contains("run release 8.0.0 or later"), "\(refusal.stderr.suffix(2_000))")
    }

    static func config(_ directory: TemporaryDirectory, stripe: FakeStripe, url: String, root: String) throws -> String {
        try directory.writeConfig([
            "base_url": "https://pay.example.com",
            "api_keys": ["public": ["pk_upgrade"]],
            "stripe": ["secret_key": "sk_test_fake_123", "webhook_secret": secret, "api_base": stripe.baseURL],
            "plans": ["lifetime": ["price_id": "price_lifetime", "mode": "payment"]],
            "entitlements": ["premium": ["price_lifetime"]],
            "database": ["url": url, "max_connections": 4],
            "paths": ["templates_dir": root + "/templates", "public_dir": root + "/Public"]
        ])
    }

    static func counts(_ url: String) async throws -> [String: Int] {
        try await offPool {
            let database = try PostgresDatabase(url: url, maxConnections: 1)
            defer { database.close() }
            return try database.readSync { connection in
                let releases =
                    try connection.queryOne("SELECT to_regclass('schema_releases') IS NOT NULL AS present")?.bool("present") == true
                    ? try connection.queryOne("SELECT count(*) AS n FROM schema_releases")?.int("n") ?? -1 : 0
                return [
                    "purchases": try connection.queryOne("SELECT count(*) AS n FROM purchases")?.int("n") ?? -1,
                    "codes": try connection.queryOne("SELECT count(*) AS n FROM redemption_codes")?.int("n") ?? -1,
                    "events seen": try connection.queryOne("SELECT count(*) AS n FROM webhook_events WHERE source = 'stripe'")?.int("n") ?? -1,
                    "purchases with one code": try connection.queryOne(
                        "SELECT count(*) AS n FROM (SELECT purchase_id FROM redemption_codes GROUP BY purchase_id HAVING count(*) = 1) AS once")?.int(
                            "n") ?? -1,
                    "paid sessions": try connection.queryOne(
                        "SELECT count(*) AS n FROM checkouts WHERE purchase_id IS NOT NULL")?.int("n") ?? -1,
                    "releases": releases
                ].filter { $0.key != "releases" || releases > 0 }
            }
        }
    }

    static func execute(_ url: String, _ sql: String) async throws {
        try await offPool {
            let database = try PostgresDatabase(url: url, maxConnections: 1)
            defer { database.close() }
            try database.writeSync { try $0.execute(sql) }
        }
    }
}
