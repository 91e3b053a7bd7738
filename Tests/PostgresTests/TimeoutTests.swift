import Foundation
import Postgres
import Testing

/// Reads that take too long fail with `.timeout` instead of hanging, and the server is told to
/// stop; a running statement can be cancelled from another thread.
@Suite struct TimeoutTests {
    @Test func aSlowQueryTimesOutAndTheServerCancelsIt() async throws {
        let server = try await PostgresTestServer.get()
        var configuration = server.configuration()
        configuration.ioTimeout = .seconds(1)
        configuration.applicationName = "timeout-\(UUID().uuidString.prefix(8))"
        let connection = try PostgresConnection(configuration: configuration)
        let pid = connection.processID
        let started = ContinuousClock.now
        let error = #expect(throws: PostgresError.self) { try connection.execute("SELECT pg_sleep(5)") }
        let elapsed = started.duration(to: .now)
        #expect(error?.kind == .timeout)
        #expect(elapsed < .seconds(3), "took \(elapsed)")
        #expect(connection.isClosed)
        let closed = #expect(throws: PostgresError.self) { try connection.execute("SELECT 1") }
        #expect(closed?.kind == .closed)

        // The client sent a CancelRequest: the backend is not left sleeping for 5 s.
        let admin = try server.connect()
        defer { admin.close() }
        var stillSleeping: Int64 = 1
        for _ in 0..<50 {
            stillSleeping =
                try admin.queryOne(
                    "SELECT count(*) AS n FROM pg_stat_activity WHERE pid = $1::int4 AND state = 'active'", [.int(Int64(pid))])?.int("n") ?? 0
            if stillSleeping == 0 { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(stillSleeping == 0)
    }

    @Test func cancelFromAnotherThread() async throws {
        let server = try await PostgresTestServer.get()
        let connection = try server.connect()
        defer { connection.close() }
        let token = connection.cancelToken
        DispatchQueue(label: "canceller").asyncAfter(deadline: .now() + 0.3) { try? token.cancel() }
        let started = ContinuousClock.now
        let error = #expect(throws: PostgresError.self) { try connection.execute("SELECT pg_sleep(10)") }
        #expect(error?.isQueryCanceled == true)
        #expect(started.duration(to: .now) < .seconds(5))
        #expect(!connection.isClosed)
        #expect(try connection.queryOne("SELECT 1 AS one")?.int("one") == 1)
    }
}
