import Foundation
import Postgres
import Testing

/// The pool under concurrency, after the server kills its connections, and when exhausted.
@Suite struct PoolTests {
    func tableName(_ prefix: String) -> String { "\(prefix)_\(UInt32.random(in: 0...UInt32.max))" }

    @Test func concurrentIncrementsInTransactionsAreExact() async throws {
        let server = try await PostgresTestServer.get()
        let pool = PostgresPool(configuration: server.configuration(), options: PostgresPoolOptions(maxConnections: 4))
        defer { pool.close() }
        let table = tableName("counter")
        try await pool.withConnection { connection in
            try connection.execute("CREATE TABLE \(table) (id int8 PRIMARY KEY, n int8 NOT NULL)")
            try connection.execute("INSERT INTO \(table) VALUES (1, 0)")
        }
        let tasks = 8
        let increments = 100
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<tasks {
                group.addTask {
                    for _ in 0..<increments {
                        try await pool.transaction { connection in
                            let current = try connection.queryOne("SELECT n FROM \(table) WHERE id = 1 FOR UPDATE")?.int("n") ?? -1
                            try connection.run("UPDATE \(table) SET n = $1 WHERE id = 1", [.int(current + 1)])
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let total = try await pool.withConnection { try $0.queryOne("SELECT n FROM \(table) WHERE id = 1")?.int("n") }
        #expect(total == Int64(tasks * increments))
        #expect(pool.statistics.open <= 4)
        try await pool.withConnection { try $0.execute("DROP TABLE \(table)") }
    }

    @Test func recoversAfterTheServerTerminatesItsBackends() async throws {
        let server = try await PostgresTestServer.get()
        let pool = PostgresPool(configuration: server.configuration(), options: PostgresPoolOptions(maxConnections: 2))
        defer { pool.close() }
        let firstPID = try await pool.withConnection { try $0.queryOne("SELECT pg_backend_pid() AS pid")?.int("pid") }
        #expect(pool.statistics.idle == 1)

        // Another session kills the idle pooled backend, as an operator or a restart would.
        let admin = try server.connect()
        defer { admin.close() }
        #expect(try admin.queryOne("SELECT pg_terminate_backend($1::int4) AS done", [.int(firstPID ?? 0)])?.bool("done") == true)
        // Wait until the server has sent its FATAL and closed.
        for _ in 0..<100 {
            let gone = try admin.queryOne("SELECT count(*) AS n FROM pg_stat_activity WHERE pid = $1::int4", [.int(firstPID ?? 0)])?.int("n")
            if gone == 0 { break }
            try await Task.sleep(for: .milliseconds(20))
        }

        // The next checkout notices, drops it and opens a new one: the caller sees no error.
        let secondPID = try await pool.withConnection { try $0.queryOne("SELECT pg_backend_pid() AS pid")?.int("pid") }
        #expect(secondPID != nil)
        #expect(secondPID != firstPID)
        #expect(pool.statistics.open == 1)

        // Killed while checked out: the caller's statement fails, the connection is discarded.
        let error = await #expect(throws: PostgresError.self) {
            try await pool.withConnection { connection in
                let killer = try server.connect()
                defer { killer.close() }
                _ = try killer.queryOne("SELECT pg_terminate_backend($1::int4) AS done", [.int(Int64(connection.processID))])
                Thread.sleep(forTimeInterval: 0.2)
                try connection.execute("SELECT 1")
            }
        }
        #expect(error?.kind == .server || error?.kind == .connection, "\(String(describing: error))")
        #expect(pool.statistics.open == 0)
        #expect(try await pool.withConnection { try $0.queryOne("SELECT 1 AS one")?.int("one") } == 1)
    }

    @Test func checkoutTimesOutWhenExhausted() async throws {
        let server = try await PostgresTestServer.get()
        let pool = PostgresPool(
            configuration: server.configuration(), options: PostgresPoolOptions(maxConnections: 1, checkoutTimeout: .milliseconds(300)))
        defer { pool.close() }
        let (outcome, elapsed): (String, Duration) = try await pool.withConnection { _ in
            // The only connection is held here: a second checkout must give up after 300 ms.
            let started = ContinuousClock.now
            do {
                try pool.withConnection { _ in }
                return ("checked out twice", started.duration(to: .now))
            } catch let error as PostgresError {
                return (error.kind == .pool ? "timed out" : "\(error)", started.duration(to: .now))
            }
        }
        #expect(outcome == "timed out")
        #expect(elapsed >= .milliseconds(280))
        #expect(elapsed < .seconds(5))
        #expect(pool.statistics.open == 1)
        #expect(pool.statistics.idle == 1)
        #expect(pool.statistics.waiting == 0)
    }

    @Test func aConnectionReturnedInsideATransactionIsRolledBack() async throws {
        struct Abort: Error {}
        let server = try await PostgresTestServer.get()
        let pool = PostgresPool(configuration: server.configuration(), options: PostgresPoolOptions(maxConnections: 1))
        defer { pool.close() }
        let table = tableName("leftopen")
        try await pool.withConnection { try $0.execute("CREATE TABLE \(table) (id int8)") }
        await #expect(throws: Abort.self) {
            try await pool.withConnection { connection in
                try connection.begin()
                try connection.execute("INSERT INTO \(table) VALUES (1)")
                throw Abort()
            }
        }
        let (status, count) = try await pool.withConnection { connection in
            (connection.transactionStatus, try connection.queryOne("SELECT count(*) AS n FROM \(table)")?.int("n"))
        }
        #expect(status == .idle)
        #expect(count == 0)
        try await pool.withConnection { try $0.execute("DROP TABLE \(table)") }
    }

    @Test func aClosedPoolRefusesCheckouts() async throws {
        let server = try await PostgresTestServer.get()
        let pool = PostgresPool(configuration: server.configuration())
        try await pool.withConnection { _ in }
        pool.close()
        #expect(pool.statistics.open == 0)
        let error = await #expect(throws: PostgresError.self) { try await pool.withConnection { _ in } }
        #expect(error?.kind == .pool)
    }
}
