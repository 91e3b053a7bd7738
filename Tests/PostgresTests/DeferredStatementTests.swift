import Postgres
import Testing

/// `executeDeferred`: statements queued without a round trip of their own, sent with the next
/// statement that needs an answer (or COMMIT) before one Sync.
@Suite struct DeferredStatementTests {
    func tableName(_ prefix: String) -> String { "\(prefix)_\(UInt32.random(in: 0...UInt32.max))" }

    @Test func deferredStatementsRunInOrderWithTheNextQueryInOneRoundTrip() async throws {
        let server = try await PostgresTestServer.get()
        let connection = try server.connect()
        defer { connection.close() }
        let table = tableName("deferred_order")
        try connection.execute("CREATE TABLE \(table) (id int8 PRIMARY KEY, n int8 NOT NULL)")
        defer { try? connection.execute("DROP TABLE \(table)") }

        let before = connection.roundTrips
        let rows = try connection.transaction(pipelining: ["BEGIN"]) { connection in
            try connection.executeDeferred("INSERT INTO \(table) VALUES ($1, $2)", [1, 2])
            try connection.executeDeferred("UPDATE \(table) SET n = n * 10")
            try connection.executeDeferred("INSERT INTO \(table) VALUES ($1, $2)", [2, 3])
            #expect(connection.roundTrips == before, "nothing is sent while statements are only deferred")
            #expect(connection.hasDeferredStatements)
            let rows = try connection.query("SELECT id, n FROM \(table) ORDER BY id").rows
            #expect(connection.roundTrips == before + 1, "BEGIN, the three statements and the query: one round trip")
            #expect(!connection.hasDeferredStatements)
            // Deferred after the last query: they go out with COMMIT.
            try connection.executeDeferred("UPDATE \(table) SET n = n + 1 WHERE id = $1", [2])
            return rows
        }
        #expect(connection.roundTrips == before + 2, "the last UPDATE rides with COMMIT")
        #expect(try rows.map { [try $0.int("id"), try $0.int("n")] } == [[1, 20], [2, 3]])
        let after = try connection.query("SELECT id, n FROM \(table) ORDER BY id").rows
        #expect(try after.map { [try $0.int("id"), try $0.int("n")] } == [[1, 20], [2, 4]])
        #expect(connection.transactionStatus == .idle)
    }

    @Test func aFailingDeferredStatementSurfacesAtTheNextQueryAndNothingIsWritten() async throws {
        let server = try await PostgresTestServer.get()
        let connection = try server.connect()
        defer { connection.close() }
        let table = tableName("deferred_error")
        try connection.execute("CREATE TABLE \(table) (id int8 PRIMARY KEY)")
        defer { try? connection.execute("DROP TABLE \(table)") }

        let error = #expect(throws: PostgresError.self) {
            try connection.transaction(pipelining: ["BEGIN"]) { connection in
                try connection.executeDeferred("INSERT INTO \(table) VALUES ($1)", [1])
                try connection.executeDeferred("INSERT INTO \(table) VALUES ($1)", [1])
                try connection.executeDeferred("INSERT INTO \(table) VALUES ($1)", [2])
                _ = try connection.query("SELECT count(*) AS n FROM \(table)")
                Issue.record("the query reported no error")
            }
        }
        #expect(error?.kind == .server && error?.sqlState == "23505")
        #expect(error?.deferredStatement == 1, "the second deferred statement failed")
        #expect(connection.transactionStatus == .idle, "rolled back")
        #expect(try connection.queryOne("SELECT count(*) AS n FROM \(table)")?.int("n") == 0, "nothing half-written")
    }

    @Test func aFailingDeferredStatementSentWithCommitCommitsNothing() async throws {
        let server = try await PostgresTestServer.get()
        let connection = try server.connect()
        defer { connection.close() }
        let table = tableName("deferred_commit")
        try connection.execute("CREATE TABLE \(table) (id int8 PRIMARY KEY)")
        defer { try? connection.execute("DROP TABLE \(table)") }

        let before = connection.roundTrips
        let error = #expect(throws: PostgresError.self) {
            try connection.transaction(pipelining: ["BEGIN"]) { connection in
                try connection.executeDeferred("INSERT INTO \(table) VALUES ($1)", [7])
                try connection.executeDeferred("INSERT INTO \(table) VALUES ($1)", [7])
            }
        }
        #expect(error?.sqlState == "23505" && error?.deferredStatement == 1)
        #expect(connection.roundTrips - before == 2, "BEGIN, both INSERTs and COMMIT in one write; then a ROLLBACK")
        #expect(connection.transactionStatus == .idle)
        #expect(try connection.queryOne("SELECT count(*) AS n FROM \(table)")?.int("n") == 0)
    }

    @Test func aBodyThatThrowsWithStatementsOnlyDeferredSendsNothing() async throws {
        struct Refused: Error {}
        let server = try await PostgresTestServer.get()
        let connection = try server.connect()
        defer { connection.close() }
        let table = tableName("deferred_unsent")
        try connection.execute("CREATE TABLE \(table) (id int8 PRIMARY KEY)")
        defer { try? connection.execute("DROP TABLE \(table)") }

        let before = connection.roundTrips
        #expect(throws: Refused.self) {
            try connection.transaction(pipelining: ["BEGIN"]) { connection in
                try connection.executeDeferred("INSERT INTO \(table) VALUES ($1)", [1])
                throw Refused()
            }
        }
        #expect(connection.roundTrips == before, "BEGIN and the INSERT were never sent: nothing to roll back")
        #expect(!connection.hasDeferredStatements)
        #expect(try connection.queryOne("SELECT count(*) AS n FROM \(table)")?.int("n") == 0)
    }

    @Test func deferredStatementsReusePreparedStatements() async throws {
        let server = try await PostgresTestServer.get()
        let connection = try server.connect()
        defer { connection.close() }
        let table = tableName("deferred_cache")
        try connection.execute("CREATE TABLE \(table) (id int8 PRIMARY KEY, n int8 NOT NULL DEFAULT 0)")
        defer { try? connection.execute("DROP TABLE \(table)") }
        let cachedBefore = connection.cachedStatementCount

        let insert = "INSERT INTO \(table) (id) VALUES ($1)"
        for round in 0..<3 {
            try connection.transaction(pipelining: ["BEGIN"]) { connection in
                // The same statement twice in one pipeline: prepared once, the second unnamed.
                try connection.executeDeferred(insert, [.int(Int64(round * 2))])
                try connection.executeDeferred(insert, [.int(Int64(round * 2 + 1))])
            }
        }
        #expect(connection.cachedStatementCount == cachedBefore + 1, "one prepared statement, reused in every round")
        #expect(try connection.queryOne("SELECT count(*) AS n FROM \(table)")?.int("n") == 6)
    }
}
