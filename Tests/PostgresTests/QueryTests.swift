import Postgres
import Testing

/// Statements, errors, transactions, scripts and the statement cache on one connection.
@Suite struct QueryTests {
    /// A table name no other test uses.
    func tableName(_ prefix: String) -> String { "\(prefix)_\(UInt32.random(in: 0...UInt32.max))" }

    @Test func rowsAffectedFromCommandTags() async throws {
        let server = try await PostgresTestServer.get()
        let connection = try server.connect()
        defer { connection.close() }
        let table = tableName("affected")
        try connection.execute("CREATE TABLE \(table) (id int8 PRIMARY KEY, n int8 NOT NULL)")
        defer { try? connection.execute("DROP TABLE \(table)") }
        #expect(try connection.run("INSERT INTO \(table) SELECT g, 0 FROM generate_series(1, 5) g") == 5)
        #expect(try connection.run("UPDATE \(table) SET n = n + 1 WHERE id <= $1", [3]) == 3)
        #expect(try connection.run("UPDATE \(table) SET n = 1 WHERE id = $1", [99]) == 0)
        #expect(try connection.run("DELETE FROM \(table) WHERE id > $1", [3]) == 2)
        let upsert = try connection.query(
            "INSERT INTO \(table) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET n = excluded.n RETURNING id, n", [1, 10])
        #expect(upsert.commandTag == "INSERT 0 1")
        #expect(try upsert.rows.first?.int("n") == 10)
        #expect(try connection.run("CREATE INDEX ON \(table) (n)") == 0)
    }

    @Test func uniqueViolationIsTypedAndLeavesTheConnectionUsable() async throws {
        let server = try await PostgresTestServer.get()
        let connection = try server.connect()
        defer { connection.close() }
        let table = tableName("unique")
        try connection.execute("CREATE TABLE \(table) (email text CONSTRAINT \(table)_email_key UNIQUE)")
        defer { try? connection.execute("DROP TABLE \(table)") }
        try connection.execute("INSERT INTO \(table) VALUES ($1)", ["jane@example.com"])
        let error = #expect(throws: PostgresError.self) {
            try connection.execute("INSERT INTO \(table) VALUES ($1)", ["jane@example.com"])
        }
        #expect(error?.kind == .server)
        #expect(error?.isUniqueViolation == true)
        #expect(error?.sqlState == "23505")
        #expect(error?.server?.constraint == "\(table)_email_key")
        #expect(error?.server?.table == table)
        #expect(error?.server?.detail?.contains("jane@example.com") == true)
        // The value is in DETAIL only, which the description leaves out.
        #expect(error?.description.contains("jane@example.com") == false)
        #expect(connection.transactionStatus == .idle)
        #expect(try connection.queryOne("SELECT count(*) AS n FROM \(table)")?.int("n") == 1)
    }

    @Test func anErrorMidTransactionThenRollbackAndTheConnectionStillWorks() async throws {
        let server = try await PostgresTestServer.get()
        let connection = try server.connect()
        defer { connection.close() }
        let table = tableName("midtx")
        try connection.execute("CREATE TABLE \(table) (id int8 PRIMARY KEY)")
        defer { try? connection.execute("DROP TABLE \(table)") }

        try connection.begin()
        #expect(connection.transactionStatus == .inTransaction)
        try connection.execute("INSERT INTO \(table) VALUES (1)")
        let error = #expect(throws: PostgresError.self) { try connection.execute("SELECT 1 / $1::int8", [0]) }
        #expect(error?.sqlState == "22012")
        #expect(connection.transactionStatus == .failed)
        let refused = #expect(throws: PostgresError.self) { try connection.execute("SELECT 1") }
        #expect(refused?.sqlState == "25P02")  // in failed SQL transaction
        try connection.rollback()
        #expect(connection.transactionStatus == .idle)
        #expect(try connection.queryOne("SELECT count(*) AS n FROM \(table)")?.int("n") == 0)

        // COMMIT of a failed transaction is answered ROLLBACK, which is an error here.
        try connection.begin()
        try connection.execute("INSERT INTO \(table) VALUES (2)")
        _ = try? connection.execute("INSERT INTO \(table) VALUES (2)")
        let commit = #expect(throws: PostgresError.self) { try connection.commit() }
        #expect(commit?.kind == .transactionRolledBack)
        #expect(connection.transactionStatus == .idle)
        #expect(try connection.queryOne("SELECT count(*) AS n FROM \(table)")?.int("n") == 0)
    }

    @Test func transactionCommitsOrRollsBackOnThrow() async throws {
        struct Abort: Error {}
        let server = try await PostgresTestServer.get()
        let connection = try server.connect()
        defer { connection.close() }
        let table = tableName("tx")
        try connection.execute("CREATE TABLE \(table) (id int8 PRIMARY KEY)")
        defer { try? connection.execute("DROP TABLE \(table)") }
        let inserted = try connection.transaction { connection in
            try connection.run("INSERT INTO \(table) VALUES (1), (2)")
        }
        #expect(inserted == 2)
        #expect(throws: Abort.self) {
            try connection.transaction { connection in
                try connection.execute("INSERT INTO \(table) VALUES (3)")
                throw Abort()
            }
        }
        #expect(connection.transactionStatus == .idle)
        let serializable = try connection.transaction("BEGIN ISOLATION LEVEL SERIALIZABLE") { connection in
            try connection.queryOne("SHOW transaction_isolation")?.string("transaction_isolation")
        }
        #expect(serializable == "serializable")
        #expect(try connection.queryOne("SELECT count(*) AS n FROM \(table)")?.int("n") == 2)
    }

    @Test func pipelinedBeginGoesOutWithTheFirstStatement() async throws {
        struct Abort: Error {}
        let server = try await PostgresTestServer.get()
        let connection = try server.connect()
        defer { connection.close() }
        let table = tableName("pipe")
        try connection.execute("CREATE TABLE \(table) (id int8 PRIMARY KEY)")
        defer { try? connection.execute("DROP TABLE \(table)") }
        let begin = ["BEGIN ISOLATION LEVEL SERIALIZABLE", "SET LOCAL lock_timeout = '7s'"]
        // The opening statements ran before the first statement, in its transaction.
        let seen = try connection.transaction(pipelining: begin) { connection in
            let isolation = try connection.queryOne("SHOW transaction_isolation")?.string("transaction_isolation")
            let status = connection.transactionStatus
            try connection.execute("INSERT INTO \(table) VALUES (1)")
            return (isolation, status, try connection.queryOne("SHOW lock_timeout")?.string("lock_timeout"))
        }
        #expect(seen.0 == "serializable" && seen.1 == .inTransaction && seen.2 == "7s")
        #expect(connection.transactionStatus == .idle)
        #expect(try connection.queryOne("SHOW lock_timeout")?.string("lock_timeout") == "0", "SET LOCAL ended with the transaction")
        // A body that runs nothing sends nothing: no transaction is left open or committed.
        #expect(try connection.transaction(pipelining: begin) { _ in 5 } == 5)
        #expect(connection.transactionStatus == .idle)
        // A body that throws after a statement rolls back.
        #expect(throws: Abort.self) {
            try connection.transaction(pipelining: begin) { connection in
                try connection.execute("INSERT INTO \(table) VALUES (2)")
                throw Abort()
            }
        }
        // A bad opening statement is reported by the first statement, which does not run.
        let error = try #require(throws: PostgresError.self) {
            try connection.transaction(pipelining: ["BEGIN ISOLATION LEVEL NONSENSE"]) { connection in
                try connection.execute("INSERT INTO \(table) VALUES (3)")
            }
        }
        #expect(error.sqlState == "42601")
        #expect(connection.transactionStatus == .idle)
        #expect(try connection.query("SELECT id FROM \(table) ORDER BY id").rows.map { $0.values } == [[.int(1)]])
    }

    @Test func preparedStatementsAreReusedAndBounded() async throws {
        let server = try await PostgresTestServer.get()
        var configuration = server.configuration()
        configuration.statementCacheCapacity = 4
        let connection = try PostgresConnection(configuration: configuration)
        defer { connection.close() }
        let count = "SELECT count(*) AS n FROM pg_prepared_statements"
        let before = try connection.queryOne(count)?.int("n")
        for value in 0..<20 {
            #expect(try connection.queryOne("SELECT $1::int8 * 2 AS twice", [.int(Int64(value))])?.int("twice") == Int64(value) * 2)
        }
        // One server-side statement for twenty runs of the same SQL, beside the counting query's own.
        #expect(try connection.queryOne(count)?.int("n") == (before ?? 0) + 1)
        #expect(connection.cachedStatementCount == 2)
        let names = try connection.query("SELECT name, statement FROM pg_prepared_statements ORDER BY name")
        #expect(names.rows.contains { (try? $0.string("statement")) == "SELECT $1::int8 * 2 AS twice" })

        // Distinct statements beyond the capacity evict the least recently used.
        for index in 0..<10 { _ = try connection.query("SELECT \(index) AS i") }
        #expect(connection.cachedStatementCount == 4)
        #expect(try connection.queryOne(count)?.int("n") == 4)

        // With no cache, only the unnamed statement is used.
        var uncached = configuration
        uncached.statementCacheCapacity = 0
        let plain = try PostgresConnection(configuration: uncached)
        defer { plain.close() }
        for _ in 0..<3 { _ = try plain.query("SELECT 1") }
        #expect(try plain.queryOne(count)?.int("n") == 0)
    }

    @Test func aCachedStatementWhoseTableChangedIsPreparedAgain() async throws {
        let server = try await PostgresTestServer.get()
        let connection = try server.connect()
        defer { connection.close() }
        let table = tableName("altered")
        try connection.execute("CREATE TABLE \(table) (a int8)")
        defer { try? connection.execute("DROP TABLE \(table)") }
        try connection.execute("INSERT INTO \(table) VALUES (1)")
        _ = try connection.query("SELECT * FROM \(table)")
        try connection.execute("ALTER TABLE \(table) ADD COLUMN b text DEFAULT 'x'")
        // Outside a transaction the server's refusal of the old plan (0A000, "cached plan must
        // not change result type") is retried once with the statement prepared afresh.
        let row = try #require(try connection.queryOne("SELECT * FROM \(table)"))
        #expect(row.columns.names == ["a", "b"])
        #expect(try row.string("b") == "x")

        // Inside one, the transaction has failed: the error surfaces, the next run succeeds.
        _ = try connection.query("SELECT * FROM \(table) WHERE a = $1", [1])
        try connection.execute("ALTER TABLE \(table) ADD COLUMN c int8 DEFAULT 5")
        try connection.begin()
        let changed = #expect(throws: PostgresError.self) { try connection.query("SELECT * FROM \(table) WHERE a = $1", [1]) }
        #expect(changed?.sqlState == "0A000")
        try connection.rollback()
        #expect(try connection.queryOne("SELECT * FROM \(table) WHERE a = $1", [1])?.int("c") == 5)
    }

    @Test func executeScriptRunsSeveralStatementsAsOneImplicitTransaction() async throws {
        let server = try await PostgresTestServer.get()
        let connection = try server.connect()
        defer { connection.close() }
        let table = tableName("script")
        try connection.executeScript(
            """
            CREATE TABLE \(table) (id int8 PRIMARY KEY, note text);
            INSERT INTO \(table) VALUES (1, 'one; with a semicolon');
            INSERT INTO \(table) VALUES (2, $$dollar 'quoted'$$);
            -- a comment
            CREATE INDEX \(table)_note ON \(table) (note);
            """)
        defer { try? connection.execute("DROP TABLE \(table)") }
        #expect(try connection.queryOne("SELECT count(*) AS n FROM \(table)")?.int("n") == 2)

        let error = #expect(throws: PostgresError.self) {
            try connection.executeScript(
                "INSERT INTO \(table) VALUES (3, 'x'); INSERT INTO \(table) VALUES (1, 'dup'); INSERT INTO \(table) VALUES (4, 'y');")
        }
        #expect(error?.isUniqueViolation == true)
        #expect(connection.transactionStatus == .idle)
        #expect(try connection.queryOne("SELECT count(*) AS n FROM \(table)")?.int("n") == 2)
        try connection.executeScript("")
        try connection.executeScript("SELECT 1; SELECT 2")
    }

    @Test func syntaxErrorsNoticesEmptyQueriesAndCopyLeaveTheSessionUsable() async throws {
        let server = try await PostgresTestServer.get()
        let connection = try server.connect()
        defer { connection.close() }
        let syntax = #expect(throws: PostgresError.self) { try connection.execute("SELEC 1") }
        #expect(syntax?.sqlState == "42601")
        let missing = #expect(throws: PostgresError.self) { try connection.execute("SELECT * FROM no_such_table_at_all") }
        #expect(missing?.sqlState == "42P01")
        try connection.execute("DO $$ BEGIN RAISE NOTICE 'hello from the server'; END $$")
        #expect(try connection.query("").commandTag == "")
        let copy = #expect(throws: PostgresError.self) { try connection.execute("COPY pg_class FROM STDIN") }
        #expect(copy?.kind == .server)
        _ = try connection.query("COPY (SELECT 1) TO STDOUT")
        let nul = #expect(throws: PostgresError.self) { try connection.execute("SELECT 1\u{0}") }
        #expect(nul?.kind == .invalidArgument)
        #expect(try connection.queryOne("SELECT 41 + 1 AS answer")?.int("answer") == 42)
        #expect(connection.transactionStatus == .idle)
    }

    @Test func skipLockedAcrossTwoConnections() async throws {
        let server = try await PostgresTestServer.get()
        let first = try server.connect()
        let second = try server.connect()
        defer {
            first.close()
            second.close()
        }
        let table = tableName("jobs")
        try first.execute("CREATE TABLE \(table) (id int8 PRIMARY KEY, claimed_by text)")
        defer { try? first.execute("DROP TABLE \(table)") }
        try first.execute("INSERT INTO \(table) SELECT g, NULL FROM generate_series(1, 4) g")
        let claim = "SELECT id FROM \(table) WHERE claimed_by IS NULL ORDER BY id LIMIT 2 FOR UPDATE SKIP LOCKED"

        try first.begin()
        let firstClaim = try first.query(claim).rows.map { try $0.int("id") }
        try second.begin()
        let secondClaim = try second.query(claim).rows.map { try $0.int("id") }
        #expect(firstClaim == [1, 2])
        #expect(secondClaim == [3, 4])  // not blocked, not the same rows
        try second.execute("UPDATE \(table) SET claimed_by = 'second' WHERE id = ANY($1::int8[])", [.text("{3,4}")])
        try second.commit()
        try first.execute("UPDATE \(table) SET claimed_by = 'first' WHERE id IN (1, 2)")
        try first.commit()
        #expect(try first.queryOne("SELECT count(*) AS n FROM \(table) WHERE claimed_by IS NULL")?.int("n") == 0)
    }
}
