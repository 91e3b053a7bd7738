import Foundation
import Storage
import Testing

@Suite("Values and rows")
struct ValueTests {
    @Test("every SQLValue type round-trips unchanged")
    func roundTrip() async throws {
        try await withDatabase { database, _ in
            let values: [SQLValue] = [
                .null,
                .integer(Int64.max), .integer(Int64.min), .integer(-42), .integer(0),
                .real(3.141592653589793), .real(-0.5), .real(1e300),
                .text("héllo wörld 🌍 日本語"), .text(""), .text("nul\u{0}inside"),
                .blob([0, 1, 0, 255, 0]), .blob([]), .blob([0])
            ]
            try await database.write { connection in
                try connection.execute("CREATE TABLE vals (id BIGINT PRIMARY KEY, v BLOB)")
                for (index, value) in values.enumerated() {
                    try connection.execute("INSERT INTO vals (id, v) VALUES (?, ?)", [index, value])
                }
            }
            let rows = try await database.read { try $0.query("SELECT id, v FROM vals ORDER BY id") }
            #expect(rows.map { $0["v"] } == values)
            #expect(rows.map { $0[1] } == values)
        }
    }

    @Test("A column is found by name in any order of reading: in the selected order, backwards, twice, by another case")
    func columnsByName() async throws {
        try await withDatabase { database, _ in
            let rows = try await database.read { connection in
                try connection.query("SELECT 1 AS a, 'two' AS bb, 3 AS c, 'four' AS dd UNION ALL SELECT 10, 'twenty', 30, 'forty'")
            }
            for (row, base) in zip(rows, [1, 10]) {
                // In order, the way decoders read, then against it, then repeated.
                #expect(try row.int("a") == base && row.string("bb").count > 2 && row.int("c") == 3 * base)
                #expect(try row.string("dd") == (base == 1 ? "four" : "forty"))
                #expect(try row.int("c") == 3 * base && row.int("a") == base && row.int("a") == base)
                #expect(try row.string("BB") == (base == 1 ? "two" : "twenty"))
                #expect(throws: StorageError.self) { try row.int("e") }
                #expect(try row.int("c") == 3 * base)
            }
        }
    }

    @Test("In a wide row every column is found in any order, names alike in length and ends included; of two with one name, the first")
    func wideRowsByName() async throws {
        try await withDatabase { database, _ in
            // c_0_x … c_59_x: names of two lengths that share their first and last bytes, so
            // they collide wherever a lookup keys on those; one name twice, and an empty one.
            let names = (0..<60).map { "c_\($0)_x" }
            let select = names.enumerated().map { "\($0.offset) AS \($0.element)" }.joined(separator: ", ")
            let row = try #require(
                try await database.read { try $0.queryOne("SELECT \(select), 100 AS c_7_x, 'e' AS \"\", 'upper' AS MixedCase") })
            var generator = SystemRandomNumberGenerator()
            for _ in 0..<3 {
                for (index, name) in names.enumerated().shuffled(using: &generator) {
                    #expect(try row.int(name) == index, "column \(name)")
                }
            }
            // Also right after the column before the second one (where the next read is hinted).
            #expect(try row.int("c_59_x") == 59 && row.int("c_7_x") == 7)
            #expect(try row.string("") == "e")
            #expect(try row.string("mixedcase") == "upper")
            #expect(throws: StorageError.self) { try row.int("c_60_x") }
            #expect(throws: StorageError.self) { try row.int("c_1_y") }
        }
    }

    @Test("Text and blob arguments keep their values across statements, beyond the connection's argument buffer, and while a query steps")
    func argumentsKeepTheirValues() async throws {
        try await withDatabase { database, _ in
            // Sizes around the 4 KiB the connection copies arguments into: each alone, and
            // together past it, so some are copied there and the rest by SQLite.
            let sizes = [0, 1, 15, 16, 100, 2000, 2100, 4095, 4096, 4097, 9000]
            @Sendable func text(_ size: Int, _ seed: Int) -> String { String((0..<size).map { Character(UnicodeScalar(97 + ($0 + seed) % 26)!) }) }
            @Sendable func blob(_ size: Int, _ seed: Int) -> [UInt8] { (0..<size).map { UInt8(($0 * 7 + seed) % 256) } }
            try await database.write { connection in
                try connection.execute("CREATE TABLE args (id INTEGER PRIMARY KEY, kind TEXT, a TEXT, b BLOB, c TEXT)")
                for (id, size) in sizes.enumerated() {
                    try connection.execute(
                        "INSERT INTO args (id, kind, a, b, c) VALUES (?, ?, ?, ?, ?)",
                        [id, "k\(id % 2)", text(size, id), blob(size, id), text(sizes[sizes.count - 1 - id], id)])
                }
            }
            let rows = try await database.read { try $0.query("SELECT a, b, c FROM args ORDER BY id") }
            for (id, row) in rows.enumerated() {
                #expect(try row.string("a") == text(sizes[id], id), "a of \(id)")
                #expect((try row.optionalBlob("b") ?? []) == blob(sizes[id], id), "b of \(id)")
                #expect(try row.string("c") == text(sizes[sizes.count - 1 - id], id), "c of \(id)")
            }
            // A bound argument is compared with every row a query steps through.
            let odd = try await database.read { try $0.query("SELECT id FROM args WHERE kind = ? AND a <> ? ORDER BY id", ["k1", text(3, 0)]) }
            #expect(try odd.map { try $0.int("id") } == Array(stride(from: 1, to: sizes.count, by: 2)))
        }
    }

    @Test("Swift types bind through SQLBindable and come back through typed getters")
    func bindables() async throws {
        try await withDatabase { database, _ in
            let row = try await database.write { connection -> Row? in
                try connection.execute(
                    """
                    CREATE TABLE things (id TEXT PRIMARY KEY, i BIGINT, i32 INTEGER, i64 BIGINT, d DOUBLE PRECISION,
                      flag INTEGER, maybe TEXT, present TEXT, bytes BLOB, created_at BIGINT NOT NULL)
                    """)
                let none: String? = nil
                let some: String? = "here"
                return try connection.queryOne(
                    """
                    INSERT INTO things (id, i, i32, i64, d, flag, maybe, present, bytes, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *
                    """,
                    [
                        "thing-1", 7, Int32(-3), Int64(1) << 40, 2.5, true, none, some, [UInt8]([9, 0, 8]),
                        SQLValue.integer(1_700_000_000_123)
                    ])
            }
            let inserted = try #require(row)
            #expect(try inserted.string("id") == "thing-1")
            #expect(try inserted.int("i") == 7)
            #expect(try inserted.int("i32") == -3)
            #expect(try inserted.int64("i64") == 1 << 40)
            #expect(try inserted.double("d") == 2.5)
            #expect(try inserted.double("i") == 7.0)
            #expect(try inserted.bool("flag") == true)
            #expect(try inserted.optionalString("maybe") == nil)
            #expect(try inserted.optionalString("present") == "here")
            #expect(try inserted.optionalInt("maybe") == nil)
            #expect(try inserted.blob("bytes") == [9, 0, 8])
            #expect(try inserted.int64("created_at") == 1_700_000_000_123)
            #expect(inserted.columnNames.first == "id")
            #expect(inserted["no_such_column"] == .null)
            #expect(inserted[99] == .null)
        }
    }

    @Test("typed getters throw a StorageError naming the column on a type mismatch, NULL or missing column")
    func getterErrors() async throws {
        try await withDatabase { database, _ in
            let row = try #require(
                try await database.read { connection in
                    try connection.queryOne("SELECT 'secret-text' AS label, 5 AS amount, NULL AS empty")
                })
            let before = database.errorCount
            let mismatch = try #require(throws: StorageError.self) { try row.int("label") }
            #expect(mismatch.description.contains("label"))
            #expect(mismatch.description.contains("TEXT"))
            #expect(!mismatch.description.contains("secret-text"))
            let wrongType = try #require(throws: StorageError.self) { try row.string("amount") }
            #expect(wrongType.description.contains("amount"))
            let null = try #require(throws: StorageError.self) { try row.string("empty") }
            #expect(null.description.contains("empty"))
            #expect(null.description.contains("NULL"))
            let missing = try #require(throws: StorageError.self) { try row.blob("absent") }
            #expect(missing.description.contains("absent"))
            #expect(database.errorCount == before + 4)
        }
    }
}
