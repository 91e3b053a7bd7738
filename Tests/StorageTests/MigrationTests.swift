import Storage
import Testing

@Suite("Migrations")
struct MigrationTests {
    struct Boom: Error {}

    static let first = Migration(
        id: "001-accounts",
        sql: """
            CREATE TABLE accounts (id TEXT PRIMARY KEY, email TEXT NOT NULL UNIQUE, created_at BIGINT NOT NULL);
            CREATE INDEX accounts_created_at ON accounts (created_at);
            """)
    static let second = Migration(
        id: "002-purchases",
        sql: """
            CREATE TABLE purchases (id TEXT PRIMARY KEY, account_id TEXT NOT NULL REFERENCES accounts (id), amount BIGINT NOT NULL);
            """)
    static let third = Migration(id: "003-seed") { connection in
        try connection.execute("INSERT INTO accounts (id, email, created_at) VALUES (?, ?, ?)", ["acct-seed", "seed@example.com", 1])
        try connection.execute("INSERT INTO purchases (id, account_id, amount) VALUES (?, ?, ?)", ["p-seed", "acct-seed", 500])
    }

    private static func applied(_ database: SQLiteDatabase) throws -> [String] {
        try database.readSync { try $0.query("SELECT id FROM schema_migrations ORDER BY id").map { try $0.string("id") } }
    }

    private static func tableExists(_ database: SQLiteDatabase, _ name: String) throws -> Bool {
        try database.readSync {
            try $0.queryOne("SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?", [name]) != nil
        }
    }

    @Test("migrations apply in order, once; a re-run applies nothing; new ones are pending")
    func applyInOrder() async throws {
        try await withDatabase { database, _ in
            let migrator = Migrator(migrations: [Self.first, Self.second, Self.third])
            #expect(try migrator.pending(database) == ["001-accounts", "002-purchases", "003-seed"])
            #expect(try migrator.migrate(database) == ["001-accounts", "002-purchases", "003-seed"])
            #expect(try Self.applied(database) == ["001-accounts", "002-purchases", "003-seed"])
            #expect(try migrator.migrate(database) == [])
            #expect(try migrator.pending(database) == [])
            let amount = try database.readSync { try $0.queryOne("SELECT amount FROM purchases WHERE id = ?", ["p-seed"])?.int("amount") }
            #expect(amount == 500)

            let fourth = Migration(id: "004-codes", sql: "CREATE TABLE codes (id TEXT PRIMARY KEY)")
            let newer = Migrator(migrations: [Self.first, Self.second, Self.third, fourth])
            #expect(try newer.pending(database) == ["004-codes"])
            #expect(try newer.migrate(database) == ["004-codes"])
            #expect(try Self.tableExists(database, "codes"))
        }
    }

    @Test("a failing migration leaves no row and none of its changes; earlier ones stay applied")
    func failingMigration() async throws {
        try await withDatabase { database, _ in
            let failingSQL = Migration(
                id: "002-broken",
                sql: """
                    CREATE TABLE half_done (id TEXT PRIMARY KEY);
                    INSERT INTO half_done (id) VALUES ('row');
                    INSERT INTO no_such_table (id) VALUES ('x');
                    """)
            let sqlError = try #require(throws: StorageError.self) {
                try Migrator(migrations: [Self.first, failingSQL]).migrate(database)
            }
            #expect(sqlError.message.contains("002-broken"))
            #expect(sqlError.message.contains("no such table"))
            #expect(try Self.applied(database) == ["001-accounts"])
            #expect(try Self.tableExists(database, "accounts"))
            #expect(try !Self.tableExists(database, "half_done"))

            let failingBody = Migration(id: "002-body") { connection in
                try connection.execute("CREATE TABLE from_body (id TEXT PRIMARY KEY)")
                try connection.execute("INSERT INTO accounts (id, email, created_at) VALUES (?, ?, ?)", ["a", "a@example.com", 1])
                throw Boom()
            }
            #expect(throws: Boom.self) { try Migrator(migrations: [Self.first, failingBody]).migrate(database) }
            #expect(try Self.applied(database) == ["001-accounts"])
            #expect(try !Self.tableExists(database, "from_body"))
            #expect(try database.readSync { try $0.query("SELECT id FROM accounts") }.isEmpty)
        }
    }

    @Test("an applied id unknown to the code is an error (the database is newer than the code)")
    func unknownAppliedID() async throws {
        try await withDatabase { database, _ in
            _ = try Migrator(migrations: [Self.first, Self.second]).migrate(database)
            let older = Migrator(migrations: [Self.first])
            let error = try #require(throws: StorageError.self) { try older.migrate(database) }
            #expect(error.message.contains("002-purchases"))
            #expect(error.message.contains("newer than the code"))
            #expect(throws: StorageError.self) { try older.pending(database) }
        }
    }

    @Test("duplicate ids and a migration inserted before an applied one are refused")
    func badLists() async throws {
        try await withDatabase { database, _ in
            let duplicate = try #require(throws: StorageError.self) {
                try Migrator(migrations: [Self.first, Self.first]).migrate(database)
            }
            #expect(duplicate.message.contains("more than once"))
            #expect(try !Self.tableExists(database, "accounts"))

            _ = try Migrator(migrations: [Self.first, Migration(id: "003-later", sql: "CREATE TABLE later (id TEXT)")]).migrate(database)
            let outOfOrder = try #require(throws: StorageError.self) {
                try Migrator(migrations: [Self.first, Self.second, Migration(id: "003-later", sql: "CREATE TABLE later (id TEXT)")])
                    .migrate(database)
            }
            #expect(outOfOrder.message.contains("'002-purchases' is pending"))
            #expect(try !Self.tableExists(database, "purchases"))
        }
    }
}
