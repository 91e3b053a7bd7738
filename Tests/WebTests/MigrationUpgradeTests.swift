import Configuration
import Domain
import Foundation
import Logging
import Mail
import Storage
import Testing
import TestSupport
import UseCases

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
}
