import App
import Foundation
import Storage
import TestSupport
import Testing

/// The suites' databases are copies of one file migrated per run (`MigratedSQLiteTemplate`): a
/// copy must be the database a fresh migration builds, or every suite would test another schema.
@Suite("Test databases: a copy of the migrated template is a freshly migrated database")
struct MigratedTemplateTests {
    private static func schema(_ database: Database) throws -> [String] {
        try database.readSync { connection in
            try connection.query("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name").map { row in
                [try row.string("type"), try row.string("name"), try row.string("tbl_name"), try row.optionalString("sql") ?? ""]
                    .joined(separator: "|")
            }
        }
    }

    private static func applied(_ database: Database) throws -> [String] {
        try database.readSync { connection in
            try connection.query("SELECT id FROM schema_migrations ORDER BY id").map { try $0.string("id") }
        }
    }

    @Test("Same tables, indexes and applied migrations; nothing pending; each copy its own file")
    func copyMatchesFreshMigration() throws {
        let directory = NSTemporaryDirectory() + "tollgate-template-test-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let migrator = TollgateReleases.migrator

        let fresh = try SQLiteDatabase(path: directory + "/fresh.sqlite", readers: 1)
        defer { fresh.close() }
        let appliedFresh = try migrator.migrate(fresh)
        try MigratedSQLiteTemplate.copy(migrator, to: directory + "/first.sqlite")
        try MigratedSQLiteTemplate.copy(migrator, to: directory + "/second.sqlite")
        let first = try SQLiteDatabase(path: directory + "/first.sqlite", readers: 1)
        defer { first.close() }
        let second = try SQLiteDatabase(path: directory + "/second.sqlite", readers: 1)
        defer { second.close() }

        #expect(try Self.schema(first) == Self.schema(fresh))
        #expect(try Self.applied(first) == appliedFresh.sorted())
        #expect(try migrator.pending(first).isEmpty)
        #expect(try Self.applied(first).count == migrator.migrations.count)
        // A write to one copy is not seen in the other (a copy, not a shared file).
        try first.writeSync { try $0.execute("CREATE TABLE only_in_first (x INTEGER)") }
        #expect(try !Self.schema(second).contains { $0.hasPrefix("table|only_in_first|") })
        #expect(try Self.schema(first).contains { $0.hasPrefix("table|only_in_first|") })
    }
}
