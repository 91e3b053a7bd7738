import Storage
import Testing

@Suite("Transactions")
struct TransactionTests {
    struct Boom: Error {}

    private static func count(_ database: SQLiteDatabase) async throws -> Int {
        try await database.read { try $0.queryOne("SELECT COUNT(*) AS n FROM items")?.int("n") ?? -1 }
    }

    private static func names(_ database: SQLiteDatabase) async throws -> [String] {
        try await database.read { try $0.query("SELECT id FROM items ORDER BY id").map { try $0.string("id") } }
    }

    private static func makeTable(_ database: SQLiteDatabase) async throws {
        try await database.write { try $0.execute("CREATE TABLE items (id TEXT PRIMARY KEY, n BIGINT NOT NULL DEFAULT 0)") }
    }

    @Test("a write that throws leaves no half-written rows")
    func rollbackOnThrow() async throws {
        try await withDatabase { database, _ in
            try await Self.makeTable(database)
            await #expect(throws: Boom.self) {
                try await database.write { connection in
                    try connection.execute("INSERT INTO items (id) VALUES (?)", ["a"])
                    try connection.execute("INSERT INTO items (id) VALUES (?)", ["b"])
                    throw Boom()
                }
            }
            #expect(try await Self.count(database) == 0)
            // The writer is usable afterwards (the transaction was really closed).
            try await database.write { try $0.execute("INSERT INTO items (id) VALUES (?)", ["c"]) }
            #expect(try await Self.names(database) == ["c"])
        }
    }

    @Test("a failing statement rolls back the statements before it in the same write")
    func rollbackOnSQLError() async throws {
        try await withDatabase { database, _ in
            try await Self.makeTable(database)
            await #expect(throws: StorageError.self) {
                try await database.write { connection in
                    try connection.execute("INSERT INTO items (id) VALUES (?)", ["x"])
                    try connection.execute("INSERT INTO items (id) VALUES (?)", ["x"])
                }
            }
            #expect(try await Self.count(database) == 0)
        }
    }

    @Test("nested transactions are savepoints: an inner failure undoes only the inner part")
    func nestedSavepoints() async throws {
        try await withDatabase { database, _ in
            try await Self.makeTable(database)
            try await database.write { connection in
                try connection.execute("INSERT INTO items (id) VALUES (?)", ["outer-before"])
                do {
                    try (connection as! SQLiteConnection).transaction { inner in
                        try inner.execute("INSERT INTO items (id) VALUES (?)", ["inner-failed"])
                        try inner.transaction { deepest in
                            try deepest.execute("INSERT INTO items (id) VALUES (?)", ["deepest"])
                        }
                        throw Boom()
                    }
                } catch is Boom {}
                try (connection as! SQLiteConnection).transaction { inner in
                    try inner.execute("INSERT INTO items (id) VALUES (?)", ["inner-kept"])
                }
                #expect((connection as! SQLiteConnection).isInTransaction)
                try connection.execute("INSERT INTO items (id) VALUES (?)", ["outer-after"])
            }
            #expect(try await Self.names(database) == ["inner-kept", "outer-after", "outer-before"])
        }
    }

    @Test("an outer failure also undoes released savepoints")
    func outerFailureUndoesInner() async throws {
        try await withDatabase { database, _ in
            try await Self.makeTable(database)
            #expect(throws: Boom.self) {
                try database.writeSync { connection in
                    try (connection as! SQLiteConnection).transaction { try $0.execute("INSERT INTO items (id) VALUES (?)", ["inner"]) }
                    throw Boom()
                }
            }
            #expect(try await Self.count(database) == 0)
        }
    }

    @Test("run returns the number of changed rows; RETURNING and ON CONFLICT work")
    func runAndUpsert() async throws {
        try await withDatabase { database, _ in
            try await Self.makeTable(database)
            let upsert = "INSERT INTO items (id, n) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET n = items.n + excluded.n RETURNING n"
            let values = try await database.write { connection in
                try (1...3).map { _ in try connection.queryOne(upsert, ["counter", 5])?.int("n") }
            }
            #expect(values == [5, 10, 15])
            let changed = try await database.write { connection in
                try connection.execute("INSERT INTO items (id) VALUES (?), (?)", ["p", "q"])
                return try connection.run("UPDATE items SET n = ? WHERE id <> ?", [1, "counter"])
            }
            #expect(changed == 2)
        }
    }
}
