import Foundation
import Storage
import Synchronization
import TestSupport
import Testing

@Suite("The write-ahead log stays bounded", .timeLimit(.minutes(2)))
struct WALLimitTests {
    @Test("Under writes with readers always inside the log, the WAL file stays near its limit instead of growing")
    func boundedUnderSteadyLoad() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let limit = 256 * 1024
        let database = try SQLiteDatabase(path: directory.databasePath, readers: 2, walLimitBytes: limit)
        defer { database.close() }
        try await database.write { try $0.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, payload BLOB NOT NULL)") }

        // Two threads keep read transactions going the whole time, as request traffic does.
        let stop = StopFlag()
        let readers = (0..<2).map { _ in
            Task {
                try await offPool {
                    var reads = 0
                    while !stop.value.load(ordering: .relaxed) {
                        _ = try database.readSync { try $0.queryOne("SELECT count(*) AS n FROM items")?.int("n") }
                        reads += 1
                    }
                    return reads
                }
            }
        }
        var largest = 0
        let payload = [UInt8](repeating: 7, count: 3000)
        for index in 0..<3000 {
            try await database.write { try $0.execute("INSERT INTO items (id, payload) VALUES (?, ?)", [index, payload]) }
            if index % 50 == 0 { largest = max(largest, TemporaryDirectory.size(directory.databasePath + "-wal")) }
        }
        stop.value.store(true, ordering: .relaxed)
        for reader in readers { #expect(try await reader.value > 0) }
        // Without the limit this log reaches about 37 MB (measured). With it: the limit plus what
        // accumulates between two checkpoints (256 commits of a few pages, about 3 MB), more
        // when the checkpointer gets little CPU (beside a thousand parallel tests: 20.7 MB seen,
        // so scripts/test runs this suite on its own).
        #expect(largest > 0)
        #expect(largest < 16 * 1024 * 1024, "the WAL reached \(largest) bytes")
        #expect(try await database.read { try $0.queryOne("SELECT count(*) AS n FROM items")?.int("n") } == 3000)
    }
}

extension WALLimitTests {
    @Test("Commits of writeSync (the CLI, the seeding tool) count toward checkpoints: the log stays bounded")
    func boundedUnderSynchronousWrites() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let database = try SQLiteDatabase(path: directory.databasePath, readers: 1, walLimitBytes: 256 * 1024)
        defer { database.close() }
        try database.writeSync { try $0.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, payload BLOB NOT NULL)") }
        var largest = 0
        let payload = [UInt8](repeating: 7, count: 3000)
        for index in 0..<4000 {
            try database.writeSync { try $0.execute("INSERT INTO items (id, payload) VALUES (?, ?)", [index, payload]) }
            if index % 50 == 0 { largest = max(largest, TemporaryDirectory.size(directory.databasePath + "-wal")) }
        }
        // Each row fills a page: without checkpoints the log passes 32 MB (4,000 commits of two
        // or more pages); with them, what 256 commits add between two checkpoints, a few MB.
        #expect(largest > 0)
        #expect(largest < 16 * 1024 * 1024, "the WAL reached \(largest) bytes")
        #expect(try database.readSync { try $0.queryOne("SELECT count(*) AS n FROM items")?.int("n") } == 4000)
    }
}

extension WALLimitTests {
    @Test("A few huge commits (an import) get checkpoints as many small ones do: the log stays bounded")
    func boundedUnderFewLargeCommits() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let database = try SQLiteDatabase(path: directory.databasePath, readers: 1, walLimitBytes: 256 * 1024)
        defer { database.close() }
        try await database.write { try $0.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, payload BLOB NOT NULL)") }
        var largest = 0
        let payload = [UInt8](repeating: 7, count: 3000)
        for batch in 0..<40 {
            try await database.write { connection in
                for row in 0..<250 {
                    try connection.execute("INSERT INTO items (id, payload) VALUES (?, ?)", [batch * 250 + row, payload])
                }
            }
            largest = max(largest, TemporaryDirectory.size(directory.databasePath + "-wal"))
        }
        // 40 commits of 250 pages each: counted by commits, checkpoints never came (the log
        // passed 40 MB); counted by pages, the log holds about one commit and the next.
        #expect(largest > 0)
        #expect(largest < 16 * 1024 * 1024, "the WAL reached \(largest) bytes")
        #expect(try await database.read { try $0.queryOne("SELECT count(*) AS n FROM items")?.int("n") } == 10_000)
    }
}

private final class StopFlag: Sendable {
    let value = Atomic<Bool>(false)
}
