import Crypto
import Postgres
import Testing

/// Every parameter kind round-trips through the server, and result columns decode by type.
@Suite struct ValueTests {
    @Test(arguments: [
        PostgresValue.int(0), .int(-1), .int(42), .int(Int64.max), .int(Int64.min),
        .double(0), .double(-1.5), .double(3.141592653589793), .double(1e-300), .double(.greatestFiniteMagnitude),
        .double(.infinity), .double(-.infinity),
        .text(""), .text("plain"), .text("ünïcödé ✓ 日本語 🎉"), .text("quote ' and backslash \\ and $1"),
        .bytes([]), .bytes([0, 1, 2, 255]), .bool(true), .bool(false)
    ])
    func parameterRoundTrips(value: PostgresValue) async throws {
        let server = try await PostgresTestServer.get()
        let connection = try server.connect()
        defer { connection.close() }
        let row = try #require(try connection.queryOne("SELECT $1 AS value", [value]))
        #expect(row["value"] == value)
    }

    @Test func nullOfEveryTypeAndNaN() async throws {
        let server = try await PostgresTestServer.get()
        let connection = try server.connect()
        defer { connection.close() }
        let row = try #require(
            try connection.queryOne(
                "SELECT $1::int8 AS i, $2::float8 AS d, $3::text AS t, $4::bytea AS b, $5::bool AS z, 'NaN'::float8 AS nan",
                [.null, .null, .null, .null, .null]))
        for column in ["i", "d", "t", "b", "z"] { #expect(row[column] == .null) }
        #expect(try row.optionalInt("i") == nil)
        #expect(try row.optionalString("t") == nil)
        #expect(try row.double("nan").isNaN)
    }

    @Test func largeByteaBothWays() async throws {
        let server = try await PostgresTestServer.get()
        let connection = try server.connect()
        defer { connection.close() }
        let table = "blobs_\(UInt32.random(in: 0...UInt32.max))"
        try connection.execute("CREATE TABLE \(table) (id int8 PRIMARY KEY, data bytea NOT NULL)")
        defer { try? connection.execute("DROP TABLE \(table)") }
        let bytes = try SecureRandom.bytes(count: 5_000_000)
        #expect(try connection.run("INSERT INTO \(table) VALUES ($1, $2)", [1, .bytes(bytes)]) == 1)
        let row = try #require(try connection.queryOne("SELECT data, length(data) AS size FROM \(table) WHERE id = $1", [1]))
        #expect(try row.int("size") == 5_000_000)
        #expect(try row.bytes("data") == bytes)
    }

    @Test func columnTypesDecode() async throws {
        let server = try await PostgresTestServer.get()
        let connection = try server.connect()
        defer { connection.close() }
        let row = try #require(
            try connection.queryOne(
                """
                SELECT 1::int2 AS small, 2::int4 AS medium, 3::int8 AS big, 1.5::float4 AS single, 2.25::float8 AS double,
                       'abc'::varchar(10) AS varchar, 'x'::char(3) AS bpchar, 'name'::name AS name, 12.3400::numeric AS number,
                       '\\xdeadbeef'::bytea AS bytes, true AS yes, 'pg_class'::regclass::oid AS oid, '{"a": 1}'::jsonb AS json,
                       '2024-01-02 03:04:05+00'::timestamptz AT TIME ZONE 'UTC' AS at, NULL::text AS nothing
                """))
        #expect(try row.int("small") == 1)
        #expect(try row.int("medium") == 2)
        #expect(try row.int("big") == 3)
        #expect(try row.double("single") == 1.5)
        #expect(try row.double("double") == 2.25)
        #expect(try row.double("medium") == 2)  // integers widen
        #expect(try row.string("varchar") == "abc")
        #expect(try row.string("bpchar") == "x  ")
        #expect(try row.string("name") == "name")
        #expect(try row.string("number") == "12.3400")  // numeric keeps its digits
        #expect(try row.bytes("bytes") == [0xDE, 0xAD, 0xBE, 0xEF])
        #expect(try row.bool("yes"))
        #expect(try row.int("oid") == 1259)
        #expect(try row.string("json") == #"{"a": 1}"#)
        #expect(try row.string("at") == "2024-01-02 03:04:05")
        #expect(try row.optionalString("nothing") == nil)
        #expect(row.columns.names.first == "small")

        let missing = #expect(throws: PostgresError.self) { try row.int("absent") }
        #expect(missing?.kind == .decoding)
        let wrongType = #expect(throws: PostgresError.self) { try row.int("varchar") }
        #expect(wrongType?.message == "column 'varchar' holds text, expected an integer")
        let null = #expect(throws: PostgresError.self) { try row.string("nothing") }
        #expect(null?.message.contains("NULL") == true)
    }

    @Test func parametersIntoTypedColumns() async throws {
        let server = try await PostgresTestServer.get()
        let connection = try server.connect()
        defer { connection.close() }
        let table = "typed_\(UInt32.random(in: 0...UInt32.max))"
        try connection.execute(
            """
            CREATE TABLE \(table) (small int2, medium int4, number numeric, label varchar(20), doc jsonb, at timestamptz,
                                   flag boolean, ratio float4)
            """)
        defer { try? connection.execute("DROP TABLE \(table)") }
        // int8 parameters go into int2/int4/numeric columns; text into varchar, jsonb and timestamptz.
        try connection.execute(
            "INSERT INTO \(table) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            [
                7, 70_000, 123, "label", #"{"k": [1, 2]}"#, "2024-05-06T07:08:09Z", true, 0.5
            ])
        let row = try #require(try connection.queryOne("SELECT * FROM \(table)"))
        #expect(try row.int("small") == 7)
        #expect(try row.int("medium") == 70_000)
        #expect(try row.string("number") == "123")
        #expect(try row.string("doc") == #"{"k": [1, 2]}"#)
        #expect(try row.bool("flag"))
        #expect(try row.double("ratio") == 0.5)
        // An int8 too large for int2 is the server's error, with its SQLSTATE.
        let overflow = #expect(throws: PostgresError.self) { try connection.execute("INSERT INTO \(table) (small) VALUES ($1)", [100_000]) }
        #expect(overflow?.sqlState == "22003")
    }

    @Test func manyParametersAndEmptyResults() async throws {
        let server = try await PostgresTestServer.get()
        let connection = try server.connect()
        defer { connection.close() }
        let values = (1...300).map { PostgresValue.int(Int64($0)) }
        let sql = "SELECT " + (1...300).map { "$\($0)::int8" }.joined(separator: " + ") + " AS total"
        #expect(try connection.queryOne(sql, values)?.int("total") == 45_150)
        let empty = try connection.query("SELECT 1 AS x WHERE false")
        #expect(empty.rows.isEmpty)
        #expect(empty.columns.names == ["x"])
        #expect(empty.rowsAffected == 0)
        let rows = try connection.query("SELECT g AS n FROM generate_series(1, 1000) g")
        #expect(rows.rows.count == 1000)
        #expect(rows.rowsAffected == 1000)
        #expect(try rows.rows.last?.int("n") == 1000)
    }
}
