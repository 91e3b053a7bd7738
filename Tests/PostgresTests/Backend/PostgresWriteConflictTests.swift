import Dispatch
import Foundation
@testable import Storage
import Synchronization
import Testing
import TestSupport

/// Writers on PostgreSQL run at once, on any instance (docs/POSTGRES-CONCURRENCY.md): no lock is
/// common to every write, and a transaction that loses a race runs again from the start.
@Suite struct PostgresWriteConflictTests {
    /// Two instances on one fresh schema with a two-row table `counter` (ids 1 and 2, values 0).
    static func twoInstances() async throws -> (PostgresDatabase, PostgresDatabase) {
        let (first, url) = try await PostgresDatabaseTests.freshDatabase()
        let second = try PostgresDatabase(url: url, maxConnections: 4)
        _ = try Migrator(migrations: [
            Migration(
                id: "1",
                sql: """
                    CREATE TABLE counter (id INTEGER PRIMARY KEY, value BIGINT NOT NULL);
                    INSERT INTO counter VALUES (1, 0), (2, 0);
                    """)
        ]).migrate(first)
        return (first, second)
    }

    @Test("A write on one row commits while another instance's write on another row is still open")
    func writesOnDifferentRowsRunAtOnce() async throws {
        let (first, second) = try await Self.twoInstances()
        defer { first.close(); second.close() }
        let secondDone = DispatchSemaphore(value: 0)
        let firstWrote = DispatchSemaphore(value: 0)
        // The first holds its transaction open (a row written) until the second has committed,
        // for 5 s at most: with one lock for every write, the second would wait those 5 s.
        async let held: Bool = offPool {
            try first.writeSync { connection in
                try connection.execute("UPDATE counter SET value = value + 1 WHERE id = 1")
                firstWrote.signal()
                return secondDone.wait(timeout: .now() + 5) == .success
            }
        }
        await offPool { firstWrote.wait() }
        let clock = ContinuousClock()
        let started = clock.now
        try await second.write { try $0.execute("UPDATE counter SET value = value + 1 WHERE id = 2") }
        let elapsed = clock.now - started
        secondDone.signal()
        #expect(try await held, "the first transaction was still open when the second committed")
        #expect(elapsed < .seconds(2), "the second write waited \(elapsed) for the first")
        let values = try first.readSync { try $0.query("SELECT value FROM counter ORDER BY id").map { try $0.int("value") } }
        #expect(values == [1, 1])
    }

    @Test("A read-then-write that another instance's commit made stale runs again, also when the body caught the failure")
    func staleTransactionRunsAgain() async throws {
        for catching in [false, true] {
            let (first, second) = try await Self.twoInstances()
            defer { first.close(); second.close() }
            let firstRead = DispatchSemaphore(value: 0)
            let secondDone = DispatchSemaphore(value: 0)
            let attempts = Atomic<Int>(0)
            async let firstWrite: Void = offPool {
                try first.writeSync { connection in
                    let attempt = attempts.add(1, ordering: .relaxed).newValue
                    let value = try connection.queryOne("SELECT value FROM counter WHERE id = 1")?.int("value") ?? -1
                    if attempt == 1 {
                        firstRead.signal()
                        _ = secondDone.wait(timeout: .now() + 5)
                    }
                    do {
                        try connection.execute("UPDATE counter SET value = ? WHERE id = 1", [value + 1])
                    } catch  where catching {
                        // A body that swallows the error: the transaction is aborted all the same.
                    }
                }
            }
            await offPool { firstRead.wait() }
            try await second.write { try $0.execute("UPDATE counter SET value = value + 1 WHERE id = 1") }
            secondDone.signal()
            try await firstWrite
            #expect(attempts.load(ordering: .relaxed) == 2, "the first body ran again on a fresh snapshot (catching: \(catching))")
            #expect(first.conflictRetries == 1)
            #expect(try first.readSync { try $0.queryOne("SELECT value FROM counter WHERE id = 1")?.int("value") } == 2, "no increment lost")
            #expect(first.errorCount == 0, "a conflict that was run again is no storage error")
        }
    }

    @Test("Two instances locking two rows in opposite orders: the deadlock's loser runs again, both commit")
    func deadlockIsRetried() async throws {
        let (first, second) = try await Self.twoInstances()
        defer { first.close(); second.close() }
        let firstLocked = DispatchSemaphore(value: 0)
        let secondLocked = DispatchSemaphore(value: 0)
        let runs = Runs()
        async let a: Void = Self.crossing(first, (1, 2), runs: runs, mine: firstLocked, theirs: secondLocked)
        async let b: Void = Self.crossing(second, (2, 1), runs: runs, mine: secondLocked, theirs: firstLocked)
        _ = try await (a, b)
        // The loser runs again (on a loaded machine a rerun may meet the winner once more, so
        // more than one rerun is allowed); every run beyond the first two is a counted rerun.
        let retries = first.conflictRetries + second.conflictRetries
        #expect(retries >= 1, "one of the two ran again")
        #expect(runs.count.load(ordering: .relaxed) == 2 + retries)
        let values = try first.readSync { try $0.query("SELECT value FROM counter ORDER BY id").map { try $0.int("value") } }
        #expect(values == [11, 11], "each transaction's two updates, once")
    }

    /// A write that updates `rows.0`, then (the first time each side runs, once the other side
    /// holds its first row) `rows.1`.
    private static func crossing(
        _ database: PostgresDatabase, _ rows: (Int, Int), runs: Runs, mine: DispatchSemaphore, theirs: DispatchSemaphore
    ) async throws {
        try await offPool {
            try database.writeSync(isolation: .readCommitted) { connection in
                let run = runs.count.add(1, ordering: .relaxed).newValue
                try connection.execute("UPDATE counter SET value = value + 1 WHERE id = ?", [rows.0])
                if run <= 2 {
                    mine.signal()
                    _ = theirs.wait(timeout: .now() + 5)
                }
                try connection.execute("UPDATE counter SET value = value + 10 WHERE id = ?", [rows.1])
            }
        }
    }

    @Test("Concurrent increments from two instances on the same and on different rows lose nothing")
    func concurrentIncrements() async throws {
        let (first, second) = try await Self.twoInstances()
        defer { first.close(); second.close() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, database) in [first, second, first, second, first, second].enumerated() {
                group.addTask {
                    for round in 0..<20 {
                        // Half on row 1 (every writer races on it), half on a row by writer and round.
                        let id = (index + round).isMultiple(of: 2) ? 1 : 2
                        try await database.write { connection in
                            let value = try connection.queryOne("SELECT value FROM counter WHERE id = ?", [id])?.int("value") ?? 0
                            try connection.execute("UPDATE counter SET value = ? WHERE id = ?", [value + 1, id])
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let total = try first.readSync { try $0.queryOne("SELECT SUM(value) AS total FROM counter")?.int("total") }
        #expect(total == 120)
    }
}

/// How many times the bodies of a test ran, across threads.
private final class Runs: Sendable {
    let count = Atomic<Int>(0)
}
