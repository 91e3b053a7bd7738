import Foundation
import Storage
import Testing
import TestSupport

/// The upgrade from the previous release on PostgreSQL, with real processes (docs/OPERATING.md "Upgrading").
/// `scripts/test-upgrade` builds the previous release's `tollgate` from a worktree of its commit
/// and names it in TOLLGATE_PREVIOUS_BINARY (its sources in TOLLGATE_PREVIOUS_ROOT).
///
/// Release 0.1.0 may not serve beside 0.2.0's schema (`TollgateReleases`), so the upgrade is the
/// one that release allows: 0.1.0 serves a webhook storm on a fresh database and gets SIGTERM in
/// the middle of it, then this release starts on the same database (it migrates) and serves the
/// rest of the storm with every delivery of the first half again (Stripe retries). No answer is 5xx, every event is
/// applied once, every purchase is there; then 0.1.0 refuses to start on the migrated schema, and
/// this release refuses a schema whose release does not let it run beside, naming both.
@Suite("Upgrade on PostgreSQL: the previous release's binary, then this one, under a webhook storm")
struct RollingUpgradeTests {
    static let secret = "whsec_upgrade"
    static let rounds = 4

    static var previousBinary: String? { ProcessInfo.processInfo.environment["TOLLGATE_PREVIOUS_BINARY"] }
    static var previousRoot: String? { ProcessInfo.processInfo.environment["TOLLGATE_PREVIOUS_ROOT"] }

    @Test(
        "0.1.0 serves, stops on SIGTERM, this release migrates and serves: no 5xx, every event once, every purchase",
        .enabled(
            if: TestDatabaseBackend.isPostgres && previousBinary != nil, "needs scripts/test-upgrade (PostgreSQL and the previous release's binary)"))
    func upgradeUnderStorm() async throws {
        let previous = try #require(Self.previousBinary), previousRoot = try #require(Self.previousRoot)
        let url = try #require(try TestDatabaseBackend.freshPostgresURL())
        let stripe = try FakeStripe(webhookSecret: Self.secret, knownPrices: ["price_lifetime"])
        let oldDirectory = try TemporaryDirectory(), newDirectory = try TemporaryDirectory()
        let oldConfig = try Self.config(oldDirectory, stripe: stripe, url: url, root: previousRoot)
        let newConfig = try Self.config(newDirectory, stripe: stripe, url: url, root: ChildProcess.packageRoot)

        // The previous release on a fresh database: it opens and pays the checkouts, then takes half the storm.
        let (old, oldPort) = try await ServeTests.startServer(["serve", "--config", oldConfig], binary: previous)
        defer { kill(old.pid, SIGKILL) }
        let deliveries = try await WebhookStormTests.deliveries(ports: [oldPort], stripe: stripe, rounds: Self.rounds)
        let half = deliveries.count / 2
        let storm = WebhookStorm(senders: 8, patience: 10, attempts: 3)
        // SIGTERM once it has applied a quarter of them, while the senders go on: what it answers
        // is never 5xx; what it could not take (refused connections) the second half sends again.
        let firstHalf = Array(deliveries[..<half])
        let started = Date()
        let running = Task { await storm.run(firstHalf, ports: [oldPort]) }
        while try await Self.counts(url)["events seen", default: 0] < half / 4, Date().timeIntervalSince(started) < 60 {
            try await Task.sleep(for: .milliseconds(20))
        }
        kill(old.pid, SIGTERM)
        let first = await running.value
        let stopped = try await old.finish()
        #expect(stopped.status == 0, "the previous release stops cleanly on SIGTERM: \(stopped.stderr.suffix(2_000))")
        let appliedByOld = try await Self.counts(url)
        print("upgrade: 0.1.0 answered \(first.statuses) (0: connection refused after SIGTERM) and applied \(appliedByOld)")
        #expect(first.statuses.keys.allSatisfy { $0 == 200 || $0 == 0 }, "no 5xx from the previous release: \(first.statuses)")
        #expect(first.statuses[200, default: 0] >= half / 4, "\(first.statuses)")
        // Each purchase it made from a delivery is whole: its checkout paid, one code.
        #expect(
            appliedByOld["purchases", default: 0] > 0 && appliedByOld["purchases"] == appliedByOld["paid sessions"]
                && appliedByOld["purchases"] == appliedByOld["purchases with one code"], "\(appliedByOld)")
        #expect(appliedByOld["events seen", default: 0] >= first.statuses[200, default: 0], "every event answered 200 was applied: \(appliedByOld)")

        // This release on the same database: it migrates, then takes the rest and every delivery again.
        let (new, newPort) = try await ServeTests.startServer(["serve", "--config", newConfig])
        defer { kill(new.pid, SIGKILL) }
        let second = await storm.run(Array(deliveries[half...]) + firstHalf, ports: [newPort])
        #expect(second.undelivered == 0 && second.statuses == [200: deliveries.count], "this release answered \(second.statuses)")
        let counts = try await Self.counts(url)
        print(
            "upgrade: 0.2.0 answered \(second.statuses) and the database holds \(counts), \(String(format: "%.1f", Date().timeIntervalSince(started))) s in all"
        )
        #expect(
            counts == [
                "purchases": WebhookStormTests.sessions, "codes": WebhookStormTests.sessions, "events seen": deliveries.count,
                "purchases with one code": WebhookStormTests.sessions, "paid sessions": WebhookStormTests.sessions, "releases": 1
            ], "every event applied once, every purchase there")

        // The previous release refuses the migrated schema (its own check: migrations it does not know).
        let again = ChildProcess(previous, ["serve", "--config", oldConfig])
        try again.start()
        let refused = try await again.finish()
        #expect(refused.status != 0 && refused.stderr.contains("newer than the code"), "\(refused.stderr.suffix(2_000))")

        // A schema a later release migrated, which runs beside 8.0.0 or later only: this release refuses it, naming both.
        kill(new.pid, SIGTERM)
        _ = try await new.finish()
        try await Self.execute(url, "INSERT INTO schema_releases (release, oldest_beside, recorded_at) VALUES ('9.0.0', '8.0.0', 0)")
        let tooOld = ChildProcess("tollgate", ["serve", "--config", newConfig])
        try tooOld.start()
        let refusal = try await tooOld.finish()
        #expect(refusal.status != 0, "\(refusal.stderr.suffix(2_000))")
        #expect(
            refusal.stderr.contains("this is release 0.2.0, too old for the database: its schema is release 9.0.0's")
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
