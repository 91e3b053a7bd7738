import Dispatch
import Storage
import TestSupport
import Testing

@Suite("Concurrency", .timeLimit(.minutes(2)))
struct ConcurrencyTests {
    private static func count(_ connection: Connection) throws -> Int {
        try connection.queryOne("SELECT COUNT(*) AS n FROM items")?.int("n") ?? -1
    }

    private static func prepare(_ database: SQLiteDatabase) async throws {
        try await database.write { connection in
            try connection.execute("CREATE TABLE items (id TEXT PRIMARY KEY, n BIGINT NOT NULL)")
            try connection.execute("INSERT INTO items (id, n) VALUES (?, ?)", ["existing", 0])
        }
    }

    @Test("a reader is not blocked by a write in progress and does not see its uncommitted rows")
    func readerDuringWrite() async throws {
        try await withDatabase { database, _ in
            try await Self.prepare(database)
            let (inserted, insertedSignal) = AsyncStream<Void>.makeStream()
            let release = DispatchSemaphore(value: 0)
            let writeTask = Task {
                try await database.write { connection in
                    try connection.execute("INSERT INTO items (id, n) VALUES (?, ?)", ["pending", 1])
                    insertedSignal.yield()
                    // Hold the write transaction open until the test has read. (This body runs on
                    // the writer connection's own Dispatch queue, so the wait blocks no pool thread.)
                    _ = release.wait(timeout: .now() + 60)
                }
            }
            var events = inserted.makeAsyncIterator()
            await events.next()
            let during = try await database.read { try Self.count($0) }
            let duringSync = try database.readSync { try Self.count($0) }
            release.signal()
            try await writeTask.value
            let after = try await database.read { try Self.count($0) }
            #expect(during == 1)
            #expect(duringSync == 1)
            #expect(after == 2)
        }
    }

    @Test("a read transaction keeps one snapshot while writes commit, and does not block them")
    func snapshotIsolation() async throws {
        try await withDatabase(readers: 1) { database, _ in
            try await Self.prepare(database)
            let (started, startedSignal) = AsyncStream<Void>.makeStream()
            let proceed = DispatchSemaphore(value: 0)
            // Reads run on the calling thread: this one waits on its own thread, not the pool.
            let readTask = Task {
                try await offPool {
                    try database.readSync { connection -> (Int, Int) in
                        let first = try Self.count(connection)
                        startedSignal.yield()
                        _ = proceed.wait(timeout: .now() + 60)
                        return (first, try Self.count(connection))
                    }
                }
            }
            var events = started.makeAsyncIterator()
            await events.next()
            // The only reader is inside its transaction; the writer still commits.
            try await database.write { try $0.execute("INSERT INTO items (id, n) VALUES (?, ?)", ["new", 2]) }
            proceed.signal()
            let (first, second) = try await readTask.value
            #expect(first == 1)
            #expect(second == 1)
            #expect(try await database.read { try Self.count($0) } == 2)
        }
    }

    @Test("reads beyond the kept reader connections open another instead of waiting")
    func readsBeyondThePool() async throws {
        try await withDatabase(readers: 1) { database, _ in
            try await Self.prepare(database)
            let (holding, holdingSignal) = AsyncStream<Void>.makeStream()
            let release = DispatchSemaphore(value: 0)
            let held = Task {
                try await offPool {
                    try database.readSync { connection -> [Int] in
                        let first = try Self.count(connection)
                        holdingSignal.yield()
                        _ = release.wait(timeout: .now() + 60)
                        return [first, try Self.count(connection)]
                    }
                }
            }
            var events = holding.makeAsyncIterator()
            await events.next()
            // The only kept connection is lent out; these still answer at once.
            for _ in 0..<3 { #expect(try await database.read { try Self.count($0) } == 1) }
            try await database.write { try $0.execute("INSERT INTO items (id, n) VALUES (?, ?)", ["more", 3]) }
            #expect(try await database.read { try Self.count($0) } == 2)
            release.signal()
            #expect(try await held.value == [1, 1])
        }
    }

    @Test("200 concurrent writes all land exactly once, with reads interleaved")
    func manyConcurrentWrites() async throws {
        try await withDatabase { database, _ in
            try await database.write { try $0.execute("CREATE TABLE items (id TEXT PRIMARY KEY, n BIGINT NOT NULL)") }
            let total = 200
            try await withThrowingTaskGroup(of: Void.self) { group in
                for number in 0..<total {
                    group.addTask {
                        try await database.write { connection in
                            try connection.execute("INSERT INTO items (id, n) VALUES (?, ?)", ["item-\(number)", number])
                        }
                    }
                    if number % 10 == 0 {
                        group.addTask { _ = try await database.read { try Self.count($0) } }
                    }
                }
                try await group.waitForAll()
            }
            let (rows, distinct, sum) = try await database.read { connection -> (Int, Int, Int) in
                let row = try connection.queryOne("SELECT COUNT(*) AS c, COUNT(DISTINCT id) AS d, SUM(n) AS s FROM items")
                return (try row?.int("c") ?? 0, try row?.int("d") ?? 0, try row?.int("s") ?? 0)
            }
            #expect(rows == total)
            #expect(distinct == total)
            #expect(sum == (0..<total).reduce(0, +))
        }
    }

    @Test("a synchronous call from inside a write body fails instead of deadlocking")
    func reentrantSyncCall() async throws {
        try await withDatabase { database, _ in
            let outcome = try await database.write { _ -> String in
                do {
                    _ = try database.writeSync { _ in 1 }
                    return "no error"
                } catch let error as StorageError {
                    return error.message
                }
            }
            #expect(outcome.contains("inside another call"))
        }
    }
}
