@testable import Storage
import Testing

@Suite("Statement cache")
struct StatementCacheTests {
    @Test("the same SQL is prepared once and reused with different arguments")
    func reuse() async throws {
        try await withDatabase { database, _ in
            let (cached, results) = try await database.write { connection -> (Int, [String]) in
                try connection.execute("CREATE TABLE items (id TEXT PRIMARY KEY, n BIGINT NOT NULL)")
                let baseline = (connection as! SQLiteConnection).cachedStatementCount
                for number in 0..<100 {
                    try connection.execute("INSERT INTO items (id, n) VALUES (?, ?)", ["item-\(number)", number])
                }
                let select = "SELECT id FROM items WHERE n = ?"
                let results = try [7, 42, 99].map { try connection.queryOne(select, [$0])?.string("id") ?? "none" }
                return ((connection as! SQLiteConnection).cachedStatementCount - baseline, results)
            }
            #expect(cached == 2)  // one INSERT and one SELECT statement, each prepared once
            #expect(results == ["item-7", "item-42", "item-99"])
        }
    }

    @Test("a statement is reset after a partial read and after an error")
    func resetAfterPartialReadAndError() async throws {
        try await withDatabase { database, _ in
            try await database.write { connection in
                try connection.execute("CREATE TABLE items (id TEXT PRIMARY KEY, n BIGINT NOT NULL)")
                for number in 0..<5 { try connection.execute("INSERT INTO items (id, n) VALUES (?, ?)", ["i\(number)", number]) }
            }
            try await database.write { connection in
                let select = "SELECT id FROM items WHERE n >= ? ORDER BY n"
                // queryOne stops after one row; the next use must start over, not continue.
                #expect(try connection.queryOne(select, [0])?.string("id") == "i0")
                #expect(try connection.queryOne(select, [3])?.string("id") == "i3")
                #expect(try connection.query(select, [1]).count == 4)
                let insert = "INSERT INTO items (id, n) VALUES (?, ?)"
                #expect(throws: StorageError.self) {
                    try (connection as! SQLiteConnection).transaction { try $0.execute(insert, ["i1", 1]) }
                }
                try connection.execute(insert, ["i9", 9])
                #expect(try connection.query(select, [9]).count == 1)
            }
        }
    }

    @Test("texts that agree in length, middle and end (the cache key's sample) still run their own statements")
    func sampledKeysStayApart() async throws {
        try await withDatabase { database, _ in
            let (cached, answers) = try await database.write { connection -> (Int, [String]) in
                try connection.execute("CREATE TABLE items (id TEXT PRIMARY KEY, a BIGINT NOT NULL, b BIGINT NOT NULL)")
                try connection.execute("INSERT INTO items (id, a, b) VALUES ('x', 1, 2)")
                let baseline = (connection as! SQLiteConnection).cachedStatementCount
                // Same length; the first column differs, far from the middle and the end.
                let tail = String(repeating: " ", count: 200) + "FROM items WHERE id = ?"
                let first = "SELECT a AS v" + tail, second = "SELECT b AS v" + tail
                #expect(StatementKey(sql: first).hashValue == StatementKey(sql: second).hashValue)
                #expect(StatementKey(sql: first) != StatementKey(sql: second))
                let answers = try [first, second, first, second].map { try String(connection.queryOne($0, ["x"])?.int("v") ?? 0) }
                return ((connection as! SQLiteConnection).cachedStatementCount - baseline, answers)
            }
            #expect(cached == 2)
            #expect(answers == ["1", "2", "1", "2"])
        }
    }
}
