import Configuration
import Domain
import Foundation
import Logging
import Mail
import Storage
import Testing
import TestSupport
import UseCases
import Web

@testable import App

/// The service's migrations are one list in one order, so a database made by an earlier release
/// upgrades whichever module the new migrations belong to.
@Suite("Migrations: one ordered list; an earlier release's database upgrades and starts")
struct MigrationUpgradeTests {
    /// The last migration of the previous release (round 2).
    static let previousRelease = "0330_purchase_renewal"

    @Test("Ids are one sequence across modules, in order, each number used once")
    func oneSequence() {
        let ids = TollgateMigrations.all.map(\.id)
        #expect(ids == ids.sorted())
        let numbers = ids.map { $0.prefix(4) }
        #expect(Set(numbers).count == numbers.count, "two migrations share a number: \(ids)")
        #expect(Set(ids) == Set(MailMigrations.all.map(\.id) + DomainMigrations.all.map(\.id)))
    }

    @Test("A migration added to Mail after the others applies to a database that has all of them")
    func newMailMigration() throws {
        let directory = try TemporaryDirectory()
        let database = try TestDatabaseBackend.make(sqlitePath: directory.path + "/mail-next.sqlite")
        defer { database.close() }
        _ = try Migrator(migrations: TollgateMigrations.all).migrate(database)
        let highest = try #require(TollgateMigrations.all.last?.id.prefix(4)).description
        let nextID = String(format: "%04d_mail_next", (Int(highest) ?? 0) + 10)
        let next = Migration(id: nextID, sql: "CREATE TABLE mail_next_probe (id TEXT PRIMARY KEY);")
        let lists = [MailMigrations.all + [next], DomainMigrations.all]
        // What the list was before, modules concatenated: Mail's new one lands before Domain's
        // applied ones, and the migrator refuses to start.
        #expect(throws: (any Error).self) { try Migrator(migrations: lists.flatMap { $0 }).pending(database) }
        #expect(try Migrator(migrations: TollgateMigrations.ordered(lists)).migrate(database) == [nextID])
    }

    @Test("A database made by the previous release's migrations, with a purchase in it, upgrades and serves")
    func previousReleaseUpgrades() async throws {
        let directory = try TemporaryDirectory()
        let config = try TollgateConfig.make(directory: directory.path)
        let old = try DatabaseOpener.open(config.database, logger: .disabled)
        let previous = TollgateMigrations.all.filter { $0.id <= Self.previousRelease }
        #expect(previous.count < TollgateMigrations.all.count)
        _ = try Migrator(migrations: previous).migrate(old)
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        // The purchase as the previous release wrote it (today's PurchaseRepository also writes tables
        // that release did not have, such as purchase_history).
        let ms = Timestamp.milliseconds(t0)
        try old.writeSync { connection in
            try connection.execute(
                """
                INSERT INTO purchases (id, platform, external_id, product_id, status, expires_at, observed_at, created_at, updated_at)
                VALUES ('pur_old', 'app_store', '2000000000000042', 'com.example.monthly', 'active', ?, ?, ?, ?)
                """, [ms + 86_400_000, ms, ms, ms])
        }
        old.close()

        let app = try TollgateApp(config: config, logger: .disabled, now: { t0 })
        defer { app.database.close() }
        #expect(try Migrator(migrations: TollgateMigrations.all).pending(app.database).isEmpty)
        let purchase = try await app.database.read { try PurchaseRepository.find(platform: .appStore, reference: "2000000000000042", on: $0) }
        #expect(purchase?.isEntitled(at: t0) == true)
        // The new tables are there: the reconciler's ledger and the lapse index work.
        let due = try await app.database.read {
            try LapsedPurchases.due(platform: .appStore, now: t0.addingTimeInterval(2 * 86_400), oldest: t0, limit: 10, on: $0)
        }
        #expect(due.map(\.externalID) == ["2000000000000042"])
    }

    @Test("Each migration belongs to a release; the newest is this build's and takes every later migration")
    func releasesList() {
        #expect(TollgateReleases.current.name == BuildInfo.version)
        #expect(TollgateReleases.release(of: "0380_buyer_locale") == "0.1.0")
        #expect(TollgateReleases.release(of: "0400_install_secrets") == "0.2.0")
        #expect(TollgateReleases.release(of: "0473_retention_indexes") == "0.2.0")
        #expect(TollgateReleases.release(of: "0489_not_yet_written") == BuildInfo.version)
        let ids = Set(TollgateMigrations.all.map(\.id))
        for release in TollgateReleases.all.dropLast() {
            #expect(release.lastMigration.map(ids.contains) == true, "\(release.name) ends at a migration of the list")
        }
        #expect(TollgateReleases.all.last?.lastMigration == nil)
        let names = TollgateReleases.all.map(\.name)
        #expect(zip(names, names.dropFirst()).allSatisfy { SchemaRelease.isOlder($0, than: $1) })
        #expect(SchemaRelease.isOlder("0.9.0", than: "0.10.0") && !SchemaRelease.isOlder("0.10.0", than: "0.9.0"))
        #expect(!SchemaRelease.isOlder("0.2.0", than: "0.2.0"))
    }

    @Test("An instance too old for the schema refuses to start, naming both releases; one the schema lets run beside starts")
    func tooOldRefuses() throws {
        let directory = try TemporaryDirectory()
        let config = try TollgateConfig.make(directory: directory.path)
        let first = try TollgateApp(config: config, logger: .disabled)
        let recorded = try first.database.readSync { connection in
            try connection.query("SELECT release, oldest_beside FROM schema_releases").map {
                [try $0.string("release"), try $0.string("oldest_beside")]
            }
        }
        #expect(recorded == [[BuildInfo.version, TollgateReleases.current.oldestBeside]])
        // A newer release's migration, with no release that lets this one run beside it.
        try first.database.writeSync { connection in
            try connection.execute("INSERT INTO schema_migrations (id, applied_at) VALUES ('0490_next_release', 0)")
        }
        first.database.close()
        #expect(Self.startUpError(config).contains("0490_next_release"))

        // Release 8.0.0 migrated it and lets this release run beside: it starts.
        try Self.write(config, "INSERT INTO schema_releases (release, oldest_beside, recorded_at) VALUES ('8.0.0', ?, 0)", [BuildInfo.version])
        let beside = try TollgateApp(config: config, logger: .disabled)
        #expect(try TollgateReleases.migrator.pending(beside.database).isEmpty)
        beside.database.close()

        // Release 9.0.0 runs beside 8.5.0 or later only: start-up stops, naming this release and the schema's.
        try Self.write(config, "INSERT INTO schema_releases (release, oldest_beside, recorded_at) VALUES ('9.0.0', '8.5.0', 0)", [])
        let message = Self.startUpError(config)
        #expect(message.contains("this is release \(BuildInfo.version), too old for the database"), "\(message)")
        #expect(message.contains("release 9.0.0's") && message.contains("run release 8.5.0 or later"), "\(message)")
        // `tollgate check` and `keys status` ask the same question.
        let database = try DatabaseOpener.open(config.database, logger: .disabled)
        defer { database.close() }
        #expect(throws: StorageError.self) { try TollgateReleases.migrator.pending(database) }
    }

    private static func startUpError(_ config: TollgateConfig) -> String {
        do {
            let app = try TollgateApp(config: config, logger: .disabled)
            app.database.close()
            return "started"
        } catch {
            return "\(error)"
        }
    }

    private static func write(_ config: TollgateConfig, _ sql: String, _ values: [String]) throws {
        let database = try DatabaseOpener.open(config.database, logger: .disabled)
        defer { database.close() }
        try database.writeSync { try $0.execute(sql, values) }
    }
}
