import Foundation
import Postgres
@testable import Storage
import Testing
import TestSupport

/// Storage's PostgreSQL backend (`PostgresDatabase`) on a real server: the seam's promises as
/// the repositories rely on them, each in a fresh schema.
@Suite struct PostgresDatabaseTests {
    /// A database whose connections work in a new, empty schema of the test server.
    static func freshDatabase(maxConnections: Int = 4) async throws -> (PostgresDatabase, url: String) {
        let server = try await PostgresTestServer.get()
        let schema = "s_\(UInt32.random(in: 0...UInt32.max))"
        let admin = try server.connect()
        defer { admin.close() }
        try admin.execute("CREATE SCHEMA \(schema)")
        let password = PostgresTestServer.Role.scram.password!.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let url =
            "postgres://tollgate:\(password)@127.0.0.1:\(server.port)/\(server.database)?sslmode=disable"
            + "&options=-c%20search_path%3D\(schema)"
        return (try PostgresDatabase(url: url, maxConnections: maxConnections), url)
    }

    @Test("`?` placeholders are numbered, except inside literals, quoted names and comments")
    func placeholders() {
        #expect(
            PostgresPlaceholders.rewrite("SELECT ? + ?, '?', \"a?\" -- ?\n, ? /* ? */ FROM t WHERE x = ?")
                == "SELECT $1 + $2, '?', \"a?\" -- ?\n, $3 /* ? */ FROM t WHERE x = $4")
        #expect(PostgresPlaceholders.rewrite("SELECT 'it''s ?', ?") == "SELECT 'it''s ?', $1")
    }

    @Test("Values come back as the storage classes the repositories read")
    func values() async throws {
        let (database, _) = try await Self.freshDatabase()
        defer { database.close() }
        _ = try Migrator(migrations: [
            Migration(id: "1", sql: "CREATE TABLE v (i BIGINT, f DOUBLE PRECISION, t TEXT, b BLOB, flag BOOLEAN, small INTEGER)")
        ])
        .migrate(database)
        let bytes: [UInt8] = [0, 1, 0xFF, 0x27, 0x5C]
        try database.writeSync { connection in
            try connection.execute("INSERT INTO v VALUES (?, ?, ?, ?, true, ?)", [Int64.max, 1.5, "zoë ✓ '?'", bytes, 7])
            try connection.execute("INSERT INTO v VALUES (?, ?, ?, ?, NULL, NULL)", [-1, nil as Double?, nil as String?, [UInt8]()])
        }
        let rows = try await database.read { try $0.query("SELECT i, f, t, b, flag, small FROM v ORDER BY i DESC") }
        #expect(rows.count == 2)
        #expect(try rows[0].int64("i") == Int64.max && rows[0].double("f") == 1.5 && rows[0].string("t") == "zoë ✓ '?'")
        #expect(try rows[0].blob("b") == bytes && rows[0].bool("flag") && rows[0].int("small") == 7)
        #expect(try rows[1].blob("b") == [] && rows[1].optionalString("t") == nil && rows[1].optionalBool("flag") == nil)
        let sum = try database.readSync { try $0.queryOne("SELECT SUM(small) AS total, COUNT(*) AS n FROM v") }
        #expect(try sum?.int("total") == 7 && sum?.int("n") == 2, "SUM(integer) is bigint, SUM(bigint) numeric: both read as integers")
        #expect(try database.writeSync { try $0.run("UPDATE v SET small = ? WHERE i = ?", [3, -1]) } == 1)
    }

    @Test("Constraint errors are StorageErrors with their SQLSTATE and no bound value")
    func errors() async throws {
        let (database, _) = try await Self.freshDatabase()
        defer { database.close() }
        _ = try Migrator(migrations: [
            Migration(
                id: "1",
                sql: """
                    CREATE TABLE parent (id TEXT PRIMARY KEY, email TEXT UNIQUE);
                    CREATE TABLE child (id TEXT PRIMARY KEY, parent_id TEXT NOT NULL REFERENCES parent (id));
                    """)
        ]).migrate(database)
        try database.writeSync { try $0.execute("INSERT INTO parent VALUES (?, ?)", ["p1", "jane@example.com"]) }
        let unique = try #require(throws: StorageError.self) {
            try database.writeSync { try $0.execute("INSERT INTO parent VALUES (?, ?)", ["p2", "jane@example.com"]) }
        }
        #expect(unique.isUniqueViolation && unique.isConstraintViolation && unique.sqlState == "23505")
        #expect(!"\(unique)".contains("jane@example.com"), "the server's DETAIL echoes the value; it stays out")
        let foreign = try #require(throws: StorageError.self) {
            try database.writeSync { try $0.execute("INSERT INTO child VALUES (?, ?)", ["c1", "nobody"]) }
        }
        #expect(foreign.isForeignKeyViolation && foreign.sqlState == "23503")
        #expect(database.errorCount >= 2)
    }

    @Test("A write that throws leaves nothing; a read transaction cannot write")
    func transactions() async throws {
        let (database, _) = try await Self.freshDatabase()
        defer { database.close() }
        _ = try Migrator(migrations: [Migration(id: "1", sql: "CREATE TABLE t (id TEXT PRIMARY KEY)")]).migrate(database)
        struct Boom: Error {}
        #expect(throws: Boom.self) {
            try database.writeSync { connection in
                try connection.execute("INSERT INTO t VALUES (?)", ["a"])
                throw Boom()
            }
        }
        #expect(try database.readSync { try $0.query("SELECT id FROM t") }.isEmpty)
        let readOnly = try #require(throws: StorageError.self) {
            try database.readSync { try $0.execute("INSERT INTO t VALUES (?)", ["b"]) }
        }
        #expect(readOnly.isReadOnly && readOnly.sqlState == "25006")
        try await database.checkWritable()
        // A writer never hangs on the lock, and a dead holder's session is ended by the server.
        let timeouts = try database.writeSync { connection in
            (
                try connection.queryOne("SHOW lock_timeout")?.string("lock_timeout"),
                try connection.queryOne("SHOW idle_in_transaction_session_timeout")?.string("idle_in_transaction_session_timeout")
            )
        }
        #expect(timeouts.0 == "30s" && timeouts.1 == "15s")
        #expect(try database.readSync { try $0.queryOne("SHOW lock_timeout")?.string("lock_timeout") } == "0", "only write transactions")
    }

    @Test("Writes from two instances take turns: read-then-write increments lose nothing")
    func writesAreSerializedAcrossInstances() async throws {
        let (first, url) = try await Self.freshDatabase()
        defer { first.close() }
        let second = try PostgresDatabase(url: url, maxConnections: 4)
        defer { second.close() }
        _ = try Migrator(migrations: [
            Migration(id: "1", sql: "CREATE TABLE counter (id INTEGER PRIMARY KEY, value BIGINT NOT NULL); INSERT INTO counter VALUES (1, 0);")
        ])
        .migrate(first)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for database in [first, second, first, second] {
                group.addTask {
                    for _ in 0..<25 {
                        try await database.write { connection in
                            // Under READ COMMITTED alone, two of these interleaving would lose one.
                            let value = try connection.queryOne("SELECT value FROM counter WHERE id = 1")?.int("value") ?? 0
                            try connection.execute("UPDATE counter SET value = ? WHERE id = 1", [value + 1])
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try first.readSync { try $0.queryOne("SELECT value FROM counter")?.int("value") } == 100)
    }

    @Test("Instances migrating at once apply each migration once, in the dialect's column types")
    func concurrentMigrations() async throws {
        let (first, url) = try await Self.freshDatabase()
        defer { first.close() }
        let others = try (0..<3).map { _ in try PostgresDatabase(url: url, maxConnections: 2) }
        defer { others.forEach { $0.close() } }
        let migrations = (1...6).map { index in
            Migration(id: "00\(index)", sql: "CREATE TABLE m\(index) (id TEXT PRIMARY KEY, data BLOB NOT NULL) WITHOUT ROWID;")
        }
        let applied = try await withThrowingTaskGroup(of: [String].self) { group in
            for database in [first] + others {
                group.addTask { try Migrator(migrations: migrations).migrate(database) }
            }
            return try await group.reduce(into: [String]()) { $0 += $1 }
        }
        #expect(applied.sorted() == migrations.map(\.id), "each applied by exactly one instance")
        #expect(try Migrator(migrations: migrations).pending(first).isEmpty)
        #expect(try Migrator(migrations: migrations + [Migration(id: "007", sql: "SELECT 1")]).pending(first) == ["007"])
        let type = try first.readSync {
            try $0.queryOne(
                "SELECT data_type FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'm1' AND column_name = 'data'"
            )
        }
        #expect(try type?.string("data_type") == "bytea")
    }

    @Test("A URL that is not PostgreSQL's, or a server that is not there, fails naming database.url without the password")
    func openingErrors() async throws {
        let bad = try #require(throws: StorageError.self) { try PostgresDatabase(url: "postgres://u:secret@/db") }
        #expect("\(bad)".contains("database.url") && !"\(bad)".contains("secret"))
        let port = try freePort()
        let down = try #require(throws: StorageError.self) { try PostgresDatabase(url: "postgres://u:secret@127.0.0.1:\(port)/db?sslmode=disable") }
        #expect("\(down)".contains("127.0.0.1:\(port)") && !"\(down)".contains("secret") && down.sqlState == "08006")
    }
}
