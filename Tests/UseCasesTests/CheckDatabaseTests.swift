import App
import Domain
import Foundation
import Storage
import Testing
import UseCases

/// Issue 44, item 5: `CheckDatabase` (what `tollgate check` runs), on either backend.
@Suite("CheckDatabase: integrity, schema, keys")
struct CheckDatabaseTests {
    @Test("A served database is sound; under another secret_key every sealed code is named as unreadable")
    func soundThenWrongKey() throws {
        let bench = try UseCaseBench()
        _ = try bench.paidPurchase("sub_check_1")
        _ = try bench.paidPurchase("sub_check_2")
        let sound = CheckDatabase(database: bench.database, migrations: TollgateMigrations.all, secrets: bench.secrets).run()
        #expect(sound.problems.isEmpty, "\(sound.problems)")
        #expect(sound.passed.contains("schema: known to this build, up to date"), "\(sound.passed)")
        #expect(sound.passed.contains("keys: 2 row(s) of redemption_codes open under the listed keys"), "\(sound.passed)")

        let other = try DomainSecrets(secretKey: "another-secret-key-0123456789abcdef012345")
        let wrong = CheckDatabase(database: bench.database, migrations: TollgateMigrations.all, secrets: other).run()
        #expect(wrong.problems.count == 1)
        #expect(
            wrong.problems.first?.hasPrefix("keys: 2 of 2 row(s) of redemption_codes do not open under any listed key") == true,
            "\(wrong.problems)")
    }

    @Test("A schema written by a newer release, and an empty database, are problems; a pending migration is not")
    func schema() throws {
        let bench = try UseCaseBench()
        let older = CheckDatabase(
            database: bench.database, migrations: TollgateMigrations.all + [Migration(id: "9999_next") { _ in }], secrets: bench.secrets
        ).run()
        #expect(older.problems.isEmpty && older.passed.contains { $0.contains("1 migration(s) to apply: 9999_next") }, "\(older)")
        try bench.database.writeSync { try $0.execute("INSERT INTO schema_migrations (id, applied_at) VALUES ('9999_from_the_future', 0)") }
        let newer = CheckDatabase(database: bench.database, migrations: TollgateMigrations.all, secrets: bench.secrets).run()
        #expect(newer.problems.contains { $0.hasPrefix("schema:") && $0.contains("9999_from_the_future") }, "\(newer.problems)")

        let path = NSTemporaryDirectory() + "tollgate-check-empty-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: path) }
        let empty = try SQLiteDatabase(path: path + "/empty.sqlite", readers: 1)
        defer { empty.close() }
        let nothing = CheckDatabase(database: empty, migrations: TollgateMigrations.all, secrets: bench.secrets).run()
        #expect(nothing.problems == ["schema: no Tollgate migration is applied: not a Tollgate database, or an empty one"])
    }
}
