import Foundation
import Postgres
@testable import Storage
import Testing
import TestSupport

/// `Migration.index(id:_:)` on a real PostgreSQL server: the index is built `CONCURRENTLY`, so the
/// table's writers (the instances of the release before, serving beside the one that migrates)
/// are never held up by the build; a build a crash left invalid is built again; instances
/// migrating at once build it once. `Migration.dropIndex(id:_:)` drops one the same way.
/// Serialized: a build or drop `CONCURRENTLY` waits for every older transaction of the server, so
/// two tests each holding one open would wait for each other.
@Suite(.serialized) struct PostgresIndexMigrationTests {
    static let table = Migration(id: "001", sql: "CREATE TABLE t (id TEXT PRIMARY KEY, v BIGINT NOT NULL)")

    /// A plain connection to the schema `url` names (its `search_path`).
    static func connect(_ url: String) throws -> PostgresConnection {
        try PostgresConnection(configuration: try PostgresConfiguration(url: url))
    }

    /// Waits until a session runs a statement starting with `prefix` and waits on a lock.
    static func waitForLockWait(_ url: String, statement prefix: String) async throws {
        let watcher = try connect(url)
        defer { watcher.close() }
        for _ in 0..<400 {
            let waiting = try watcher.queryOne(
                "SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1", [.text(prefix + "%")])
            if case .int(let count)? = waiting?["n"], count > 0 { return }
            try await Task.sleep(for: .milliseconds(25))
        }
        Issue.record("no session ran \(prefix)... waiting on a lock within 10 s")
    }

    /// Opens a transaction that has written to `t`, so an index build (or drop) must wait for it to
    /// end; then asks a second writer to insert while the build waits. Returns whether that insert got
    /// through within a second, and what the migration returned once the first transaction ended.
    /// - Parameter before: the migrations applied first (`t`, and the index a drop drops).
    static func writerDuringBuild(
        _ migration: Migration, statement: String, before: [Migration] = [table]
    ) async throws -> (insertPassed: Bool, applied: [String]) {
        let (database, url) = try await PostgresDatabaseTests.freshDatabase()
        defer { database.close() }
        _ = try Migrator(migrations: before).migrate(database)
        try database.writeSync { try $0.execute("INSERT INTO t (id, v) SELECT 'r' || n, n FROM generate_series(1, 2000) AS n") }
        let holder = try connect(url)
        defer { holder.close() }
        try holder.begin()
        try holder.execute("INSERT INTO t (id, v) VALUES ('held', 0)")
        let migrating = Task.detached { try Migrator(migrations: before + [migration]).migrate(database) }
        try await waitForLockWait(url, statement: statement)
        let writer = try connect(url)
        defer { writer.close() }
        try writer.execute("SET lock_timeout = '1s'")
        let insertPassed: Bool
        do {
            try writer.execute("INSERT INTO t (id, v) VALUES ('beside', 1)")
            insertPassed = true
        } catch let error as PostgresError {
            #expect(error.sqlState == "55P03", "the insert failed only for its lock timeout: \(error)")
            insertPassed = false
        }
        try holder.commit()
        return (insertPassed, try await migrating.value)
    }

    @Test("An index migration is built CONCURRENTLY: a writer beside it is not held up, as it is by a plain CREATE INDEX")
    func writersGoOnDuringTheBuild() async throws {
        let concurrent = try await Self.writerDuringBuild(
            .index(id: "002", "CREATE INDEX t_v ON t (v)"), statement: "CREATE INDEX CONCURRENTLY t_v")
        #expect(concurrent.insertPassed, "a writer inserted while the index waited to be built")
        #expect(concurrent.applied == ["002"])
        // The same index as a plain migration: its SHARE lock, queued behind the open writer, holds up the next one.
        let plain = try await Self.writerDuringBuild(
            Migration(id: "002", sql: "CREATE INDEX t_v ON t (v)"), statement: "CREATE INDEX t_v")
        #expect(!plain.insertPassed, "a plain CREATE INDEX holds up the writers behind it")
    }

    @Test("An index drop runs CONCURRENTLY: a writer beside it is not held up, as it is by a plain DROP INDEX; run again, it drops nothing")
    func writersGoOnDuringTheDrop() async throws {
        let withIndex = [Self.table, Migration.index(id: "002", "CREATE INDEX t_v ON t (v)")]
        let concurrent = try await Self.writerDuringBuild(
            .dropIndex(id: "003", "t_v"), statement: "DROP INDEX CONCURRENTLY IF EXISTS t_v", before: withIndex)
        #expect(concurrent.insertPassed, "a writer inserted while the index waited to be dropped")
        #expect(concurrent.applied == ["003"])
        let plain = try await Self.writerDuringBuild(
            Migration(id: "003", sql: "DROP INDEX t_v"), statement: "DROP INDEX t_v", before: withIndex)
        #expect(!plain.insertPassed, "a plain DROP INDEX holds up the writers behind it")

        // A drop that went through before its id was recorded (a crash between the two) is recorded the next time.
        let (database, _) = try await PostgresDatabaseTests.freshDatabase()
        defer { database.close() }
        let drop = Migration.dropIndex(id: "003", "t_v")
        _ = try Migrator(migrations: withIndex).migrate(database)
        try database.writeSync { try $0.execute("DROP INDEX t_v") }
        #expect(try Migrator(migrations: withIndex + [drop]).migrate(database) == ["003"])
        #expect(try Migrator(migrations: withIndex + [drop]).migrate(database) == [])
        let left = try database.readSync {
            try $0.queryOne("SELECT count(*) AS n FROM pg_class WHERE relname = 't_v' AND relnamespace = current_schema()::regnamespace")?
                .int64("n")
        }
        #expect(left == 0)
    }

    @Test("An index a killed build left invalid is dropped and built again; a failing build records nothing and keeps no lock")
    func invalidIndexIsRebuilt() async throws {
        let (database, url) = try await PostgresDatabaseTests.freshDatabase()
        defer { database.close() }
        _ = try Migrator(migrations: [Self.table]).migrate(database)
        try database.writeSync { try $0.execute("INSERT INTO t (id, v) VALUES ('a', 1), ('b', 1)") }
        let unique = Migration.index(id: "002", "CREATE UNIQUE INDEX t_v_unique ON t (v)")
        // A build that fails (the rows are not unique) leaves an invalid index, as a killed one does.
        #expect(throws: StorageError.self) { try Migrator(migrations: [Self.table, unique]).migrate(database) }
        let admin = try Self.connect(url)
        defer { admin.close() }
        let validity = { () throws -> PostgresValue? in
            try admin.queryOne(
                "SELECT i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = 't_v_unique' AND c.relnamespace = current_schema()::regnamespace"
            )?["valid"]
        }
        #expect(try validity() == .bool(false), "the failed build left an invalid index behind")
        #expect(try Migrator(migrations: [Self.table, unique]).pending(database) == ["002"], "nothing recorded")
        // The migrations' lock of this schema (other suites' schemas lock their own).
        let heldLocks = try admin.queryOne(
            "SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND classid = $1 AND objid = (hashtext(current_schema())::bigint & 4294967295)::oid",
            [.int(Int64(Migrator.advisoryLockClass))])?["n"]
        #expect(heldLocks == .int(0), "the session's advisory lock went with the failed build")

        try database.writeSync { try $0.execute("DELETE FROM t WHERE id = 'b'") }
        #expect(try Migrator(migrations: [Self.table, unique]).migrate(database) == ["002"])
        #expect(try validity() == .bool(true), "built again, valid")
        #expect(throws: StorageError.self, "the index holds") {
            try database.writeSync { try $0.execute("INSERT INTO t (id, v) VALUES ('c', 1)") }
        }
    }

    @Test("Instances migrating at once build an index once, beside plain migrations")
    func instancesBuildOnce() async throws {
        let (first, url) = try await PostgresDatabaseTests.freshDatabase()
        defer { first.close() }
        let others = try (0..<3).map { _ in try PostgresDatabase(url: url, maxConnections: 2) }
        defer { others.forEach { $0.close() } }
        let migrations = [
            Self.table, .index(id: "002", "CREATE INDEX t_v ON t (v)"),
            Migration(id: "003", sql: "CREATE TABLE u (id TEXT PRIMARY KEY)"), .index(id: "004", "CREATE UNIQUE INDEX t_id_v ON t (id, v)")
        ]
        let applied = try await withThrowingTaskGroup(of: [String].self) { group in
            for database in [first] + others {
                group.addTask { try Migrator(migrations: migrations).migrate(database) }
            }
            return try await group.reduce(into: [String]()) { $0 += $1 }
        }
        #expect(applied.sorted() == migrations.map(\.id), "each applied by exactly one instance")
        let indexes = try first.readSync { connection in
            try connection.query(
                "SELECT c.relname AS name, i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relnamespace = current_schema()::regnamespace AND c.relname IN ('t_v', 't_id_v') ORDER BY 1"
            ).map { "\(try $0.string("name")) \(try $0.bool("valid"))" }
        }
        #expect(indexes == ["t_id_v true", "t_v true"])
    }
}
