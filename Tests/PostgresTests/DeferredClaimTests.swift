import Postgres
import Testing

/// `executeDeferredClaim`: a statement that must change a row, sent like a deferred one; when it
/// changes none, the statement that sent it throws `.claimRefused`, and COMMIT never rides with it.
@Suite struct DeferredClaimTests {
    func tableName(_ prefix: String) -> String { "\(prefix)_\(UInt32.random(in: 0...UInt32.max))" }

    func claim(_ table: String) -> String { "INSERT INTO \(table) (id) VALUES ($1) ON CONFLICT (id) DO NOTHING" }

    @Test func aClaimThatChangesARowRidesWithTheNextQuery() async throws {
        let server = try await PostgresTestServer.get()
        let connection = try server.connect()
        defer { connection.close() }
        let table = tableName("claim_taken")
        try connection.execute("CREATE TABLE \(table) (id int8 PRIMARY KEY)")
        defer { try? connection.execute("DROP TABLE \(table)") }

        let before = connection.roundTrips
        let count = try connection.transaction(pipelining: ["BEGIN"]) { connection in
            try connection.executeDeferredClaim(claim(table), [1])
            return try connection.queryOne("SELECT count(*) AS n FROM \(table)")?.int("n")
        }
        #expect(count == 1)
        #expect(connection.roundTrips == before + 2, "BEGIN, the claim and the query; then COMMIT")
    }

    @Test func aRefusedClaimStopsTheQueryThatSentItAndNothingIsCommitted() async throws {
        let server = try await PostgresTestServer.get()
        let connection = try server.connect()
        defer { connection.close() }
        let table = tableName("claim_refused")
        try connection.execute("CREATE TABLE \(table) (id int8 PRIMARY KEY, note text)")
        defer { try? connection.execute("DROP TABLE \(table)") }
        try connection.execute("INSERT INTO \(table) (id) VALUES (1)")

        let error = #expect(throws: PostgresError.self) {
            try connection.transaction(pipelining: ["BEGIN"]) { connection in
                try connection.executeDeferred("INSERT INTO \(table) (id) VALUES ($1)", [7])
                try connection.executeDeferredClaim(claim(table), [1])
                try connection.executeDeferred("INSERT INTO \(table) (id) VALUES ($1)", [8])
                _ = try connection.query("SELECT count(*) AS n FROM \(table)")
                Issue.record("the query went on past a refused claim")
            }
        }
        #expect(error?.kind == .claimRefused && error?.deferredStatement == 1, "the second deferred statement was the claim")
        #expect(connection.transactionStatus == .idle, "rolled back")
        #expect(try connection.queryOne("SELECT count(*) AS n FROM \(table)")?.int("n") == 1, "neither 7 nor 8 was kept")
    }

    @Test func aClaimLeftForCommitIsAnsweredFirst() async throws {
        let server = try await PostgresTestServer.get()
        let connection = try server.connect()
        defer { connection.close() }
        let table = tableName("claim_commit")
        try connection.execute("CREATE TABLE \(table) (id int8 PRIMARY KEY)")
        defer { try? connection.execute("DROP TABLE \(table)") }
        try connection.execute("INSERT INTO \(table) (id) VALUES (1)")

        // Refused: the write deferred after it is not committed.
        let error = #expect(throws: PostgresError.self) {
            try connection.transaction(pipelining: ["BEGIN"]) { connection in
                try connection.executeDeferredClaim(claim(table), [1])
                try connection.executeDeferred("INSERT INTO \(table) (id) VALUES ($1)", [9])
            }
        }
        #expect(error?.kind == .claimRefused)
        #expect(connection.transactionStatus == .idle)
        #expect(try connection.queryOne("SELECT count(*) AS n FROM \(table)")?.int("n") == 1, "9 was not committed")

        // Taken: both are committed, in two round trips (the claim's answer, then COMMIT).
        let before = connection.roundTrips
        try connection.transaction(pipelining: ["BEGIN"]) { connection in
            try connection.executeDeferredClaim(claim(table), [2])
            try connection.executeDeferred("INSERT INTO \(table) (id) VALUES ($1)", [10])
        }
        #expect(connection.roundTrips == before + 2)
        #expect(try connection.queryOne("SELECT count(*) AS n FROM \(table)")?.int("n") == 3)
    }
}
