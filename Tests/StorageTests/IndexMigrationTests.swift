import Foundation
@testable import Storage
import Testing

/// `Migration.index(id:_:)` and `Migration.dropIndex(id:_:)` off PostgreSQL: the statement it
/// takes, where `CONCURRENTLY` goes, and SQLite running them as any migration (PostgreSQL:
/// `PostgresIndexMigrationTests`).
@Suite("Index migrations")
struct IndexMigrationTests {
    @Test("One CREATE [UNIQUE] INDEX name ON table (...) is taken; CONCURRENTLY goes after INDEX")
    func statementShape() throws {
        let plain = try #require(IndexBuild("CREATE INDEX purchases_status ON purchases (status, created_at)"))
        #expect(plain.name == "purchases_status")
        #expect(plain.concurrently == "CREATE INDEX CONCURRENTLY purchases_status ON purchases (status, created_at)")
        let unique = try #require(IndexBuild("\n  create unique index codes_x on codes (a) WHERE status = 'live';\n"))
        #expect(unique.name == "codes_x")
        #expect(unique.concurrently == "create unique index CONCURRENTLY codes_x on codes (a) WHERE status = 'live';")
        for refused in [
            "CREATE TABLE t (id TEXT)", "CREATE INDEX CONCURRENTLY x ON t (a)", "CREATE INDEX IF NOT EXISTS x ON t (a)",
            "CREATE INDEX x ON t (a); CREATE INDEX y ON t (b)", "CREATE INDEX ON t (a)", "CREATE INDEX \"x\" ON t (a)", "DROP INDEX x"
        ] {
            #expect(IndexBuild(refused) == nil, "\(refused)")
        }
    }

    @Test("On SQLite an index migration runs in its transaction like any other")
    func sqliteRunsItPlainly() throws {
        let path = NSTemporaryDirectory() + "tollgate-index-" + UUID().uuidString + ".sqlite"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let database = try SQLiteDatabase(path: path)
        defer { database.close() }
        let migrations = [
            Migration(id: "1", sql: "CREATE TABLE t (id TEXT PRIMARY KEY, v BIGINT NOT NULL)"), .index(id: "2", "CREATE INDEX t_v ON t (v)")
        ]
        #expect(try Migrator(migrations: migrations).migrate(database) == ["1", "2"])
        #expect(migrations[1].buildsIndexBesideWriters && !migrations[0].buildsIndexBesideWriters)
        let index = try database.readSync { try $0.queryOne("SELECT name FROM sqlite_master WHERE type = 'index' AND name = 't_v'") }
        #expect(index != nil)

        let drop = Migration.dropIndex(id: "3", "t_v")
        #expect(drop.dropsIndexBesideWriters && !drop.buildsIndexBesideWriters && !migrations[1].dropsIndexBesideWriters)
        #expect(drop.sql == "DROP INDEX IF EXISTS t_v")
        #expect(try Migrator(migrations: migrations + [drop]).migrate(database) == ["3"])
        let dropped = try database.readSync { try $0.queryOne("SELECT name FROM sqlite_master WHERE type = 'index' AND name = 't_v'") }
        #expect(dropped == nil)
    }
}
