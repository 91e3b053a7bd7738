import App
import Crypto
import Foundation
import Storage
import Testing
import UseCases

/// The service's migration list is what every database has applied: moving where it is assembled,
/// or adding migrations, never changes the ones shipped. The shipped ones (up to `lastShipped`)
/// are pinned here by their ids, in order, and by a checksum of the schema they build on SQLite.
@Suite("Migrations: the shipped list is unchanged")
struct MigrationListTests {
    /// The newest migration when this test was written; later ones are checked by `MigrationUpgradeTests`.
    static let lastShipped = "0473"
    /// The shipped migrations' ids, in the order they are applied.
    static let shippedIDs = [
        "0100_mail_outbox", "0200_accounts", "0210_purchases", "0220_redemption_codes", "0230_operations", "0240_auth_tokens",
        "0250_session_selectors", "0260_session_generations", "0270_idempotency_replies_sealed", "0300_events",
        "0310_deletion_and_retention", "0320_web_sessions", "0330_purchase_renewal", "0340_reconcile", "0350_sign_in_codes",
        "0360_link_out", "0361_link_out_token_lookups", "0380_buyer_locale", "0400_install_secrets", "0410_address_requests",
        "0430_console", "0431_mail_recipient", "0440_buyer_journeys", "0441_duplicate_subscriptions", "0442_consumption_requests",
        "0450_app_store_receipts", "0460_code_sha256", "0461_sign_in_code_key_id", "0462_mail_parameters_key_id", "0463_sealed_key_ids",
        "0470_manual_entitlements", "0471_sealed_key_id_indexes", "0472_mail_parameters_key_id_index", "0473_retention_indexes"
    ]
    /// SHA-256 of `sqlite_master` (type, name, table, SQL; by type and name) after the shipped migrations.
    static let schemaChecksum = "c4acf9c8361e3ddda9a685101d6bfd6ebedb179626dc0a21375ccdb0e9e6bb9d"

    static func checksum(_ text: String) throws -> String { Hex.encode(try SHA256.hash(Array(text.utf8))) }

    @Test("The shipped migrations keep their ids, order and SQL")
    func shippedListUnchanged() throws {
        let shipped = TollgateMigrations.all.filter { String($0.id.prefix(4)) <= Self.lastShipped }
        let ids = shipped.map(\.id)
        #expect(ids == Self.shippedIDs)
        #expect(TollgateMigrations.all.prefix(ids.count).map(\.id) == ids, "a new migration sorts after every shipped one")
        let path = NSTemporaryDirectory() + "tollgate-migrations-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: path) }
        let database = try SQLiteDatabase(path: path + "/list.sqlite")
        defer { database.close() }
        #expect(try Migrator(migrations: shipped).migrate(database) == ids)
        let schema = try database.readSync { connection in
            try connection.query("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name")
                .map { row in try ["type", "name", "tbl_name", "sql"].map { try row.optionalString($0) ?? "" }.joined(separator: "|") }
        }
        let checksum = try Self.checksum(schema.joined(separator: "\n"))
        #expect(checksum == Self.schemaChecksum, "the shipped migrations now build a schema of checksum \(checksum)")
    }

    @Test("A release whose schema an older release serves beside only adds, and builds or drops indexes on existing tables CONCURRENTLY")
    func besideReleasesOnlyAdd() throws {
        var checked = 0
        for migration in TollgateMigrations.all {
            let release = try #require(TollgateReleases.all.first { $0.name == TollgateReleases.release(of: migration.id) })
            guard SchemaRelease.isOlder(release.oldestBeside, than: release.name) else { continue }
            checked += 1
            let problems = Self.blockingChanges(migration)
            #expect(problems.isEmpty, "release \(release.name) runs beside \(release.oldestBeside), but migration \(migration.id) \(problems)")
        }
        print("migrations of releases that run beside an older one: \(checked)")
    }

    @Test("The check finds what would stop the release before from serving beside")
    func besideCheckFindsProblems() {
        #expect(Self.blockingChanges(Migration(id: "x", sql: "CREATE TABLE n (id TEXT PRIMARY KEY); CREATE INDEX n_id ON n (id);")).isEmpty)
        #expect(Self.blockingChanges(.index(id: "x", "CREATE INDEX purchases_x ON purchases (status)")).isEmpty)
        #expect(Self.blockingChanges(.dropIndex(id: "x", "purchases_x")).isEmpty)
        #expect(!Self.blockingChanges(Migration(id: "x", sql: "DROP INDEX purchases_x")).isEmpty)
        #expect(Self.blockingChanges(Migration(id: "x", sql: "ALTER TABLE purchases ADD COLUMN note TEXT")).isEmpty)
        #expect(Self.blockingChanges(Migration(id: "x", sql: "ALTER TABLE purchases ADD COLUMN n BIGINT NOT NULL DEFAULT 0")).isEmpty)
        #expect(!Self.blockingChanges(Migration(id: "x", sql: "CREATE INDEX purchases_x ON purchases (status)")).isEmpty)
        #expect(!Self.blockingChanges(Migration(id: "x", sql: "ALTER TABLE purchases ADD COLUMN n BIGINT NOT NULL")).isEmpty)
        #expect(!Self.blockingChanges(Migration(id: "x", sql: "ALTER TABLE purchases DROP COLUMN note")).isEmpty)
        #expect(!Self.blockingChanges(Migration(id: "x", sql: "DROP TABLE events")).isEmpty)
        #expect(!Self.blockingChanges(Migration(id: "x", sql: "ALTER TABLE purchases RENAME COLUMN a TO b")).isEmpty)
        #expect(!Self.blockingChanges(Migration(id: "x") { _ in }).isEmpty, "Swift migrations cannot be read")
    }

    /// What in `migration` an older release serving beside could not live with: a removal or
    /// rename, a NOT NULL column without a default, a plain index on a table that holds rows
    /// (it stops the table's writers while it builds), or Swift code this check cannot read. A
    /// `Migration.dropIndex` passes: it stops no writer, and the index it drops is one the older
    /// release can do without (its comment says which statement reads the table instead).
    static func blockingChanges(_ migration: Migration) -> [String] {
        if migration.dropsIndexBesideWriters { return [] }
        guard let sql = migration.sql else { return ["is written in Swift, which this check cannot read"] }
        let text = sql.uppercased()
        var problems: [String] = []
        for pattern in [#"\bDROP\s+(TABLE|COLUMN|INDEX)\b"#, #"\bRENAME\b"#, #"\bALTER\s+COLUMN\b"#]
        where text.range(of: pattern, options: .regularExpression) != nil {
            problems.append("removes or changes what exists (\(pattern))")
        }
        for statement in text.split(separator: ";") where statement.contains("ADD COLUMN") {
            if statement.contains("NOT NULL") && !statement.contains("DEFAULT") {
                problems.append("adds a NOT NULL column without a default: \(statement.trimmingCharacters(in: .whitespacesAndNewlines))")
            }
        }
        if !migration.buildsIndexBesideWriters {
            let created = Set(Self.names(in: text, after: #"CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?"#))
            for table in Self.names(in: text, after: #"CREATE\s+(?:UNIQUE\s+)?INDEX\s+(?:IF\s+NOT\s+EXISTS\s+)?\w+\s+ON\s+"#)
            where !created.contains(table) {
                problems.append("builds a plain index on \(table.lowercased()), which holds rows: use Migration.index(id:_:)")
            }
        }
        return problems
    }

    /// The names that follow each match of `prefix` in `text`.
    static func names(in text: String, after prefix: String) -> [String] {
        guard let expression = try? NSRegularExpression(pattern: prefix + #"(\w+)"#) else { return [] }
        return expression.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { match in
            Range(match.range(at: 1), in: text).map { String(text[$0]) }
        }
    }
}
