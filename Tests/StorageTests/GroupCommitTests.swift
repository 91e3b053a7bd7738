import Foundation
import Storage
import Testing

@Suite("Group commit of concurrent writes")
struct GroupCommitTests {
    struct Refused: Error {}

    @Test("A write that throws in a busy group rolls back alone; the others commit and are visible when they return")
    func failingWriteRollsBackAlone() async throws {
        try await withDatabase { database, _ in
            _ = try await database.write { try $0.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL)") }
            let outcomes = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
                for index in 0..<300 {
                    group.addTask {
                        do {
                            try await database.write { connection in
                                try connection.execute("INSERT INTO items (id, name) VALUES (?, ?)", [index, "item \(index)"])
                                if index % 7 == 0 { throw Refused() }
                            }
                            // Read-after-write: once write returns, a reader sees the row.
                            let seen = try await database.read { try $0.queryOne("SELECT id FROM items WHERE id = ?", [index]) != nil }
                            return (index, seen)
                        } catch is Refused {
                            return (index, false)
                        }
                    }
                }
                var outcomes: [(Int, Bool)] = []
                for try await outcome in group { outcomes.append(outcome) }
                return outcomes
            }
            for (index, seen) in outcomes {
                #expect(seen == (index % 7 != 0), "row \(index)")
            }
            let ids = try await database.read { try $0.query("SELECT id FROM items ORDER BY id").map { try $0.int("id") } }
            #expect(ids == (0..<300).filter { $0 % 7 != 0 })
        }
    }

    @Test("Each write of a busy group gets its own answer back: a value, nil, or its own error")
    func eachWriteGetsItsOwnAnswer() async throws {
        try await withDatabase { database, _ in
            _ = try await database.write { try $0.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT)") }
            let answers = await withTaskGroup(of: (Int, String).self) { group in
                for index in 0..<200 {
                    group.addTask {
                        do {
                            // A write whose answer is optional: nil for every third, which names no row.
                            let name: String? = try await database.write { connection in
                                try connection.execute("INSERT INTO items (id, name) VALUES (?, ?)", [index, index % 3 == 0 ? nil : "item \(index)"])
                                if index % 5 == 0 { throw Refused() }
                                return try connection.queryOne("SELECT name FROM items WHERE id = ?", [index])?.optionalString("name")
                            }
                            return (index, name ?? "nil")
                        } catch is Refused {
                            return (index, "refused")
                        } catch {
                            return (index, "\(error)")
                        }
                    }
                }
                var answers: [Int: String] = [:]
                for await (index, answer) in group { answers[index] = answer }
                return answers
            }
            for index in 0..<200 {
                let expected = index % 5 == 0 ? "refused" : index % 3 == 0 ? "nil" : "item \(index)"
                #expect(answers[index] == expected, "write \(index)")
            }
        }
    }

    @Test("A constraint violation in one write of a group does not poison the others")
    func constraintViolationIsolated() async throws {
        try await withDatabase { database, _ in
            _ = try await database.write { try $0.execute("CREATE TABLE keys (k TEXT PRIMARY KEY)") }
            let results = await withTaskGroup(of: Bool.self) { group in
                for index in 0..<100 {
                    group.addTask {
                        // Every fifth write reuses key "dup": only the first of them may succeed.
                        let key = index % 5 == 0 ? "dup" : "k\(index)"
                        return (try? await database.write { try $0.execute("INSERT INTO keys (k) VALUES (?)", [key]) }) != nil
                    }
                }
                var results: [Bool] = []
                for await result in group { results.append(result) }
                return results
            }
            #expect(results.filter { !$0 }.count == 19)
            let count = try await database.read { try $0.queryOne("SELECT count(*) AS n FROM keys")?.int("n") }
            #expect(count == 81)
        }
    }
}

@Suite("Checkpoints off the writer", .timeLimit(.minutes(1)))
struct CheckpointTests {
    @Test("Committed pages reach the database file while the database stays open (the writer never checkpoints itself)")
    func checkpointsRunInTheBackground() async throws {
        try await withDatabase { database, directory in
            _ = try await database.write { try $0.execute("CREATE TABLE blobs (id INTEGER PRIMARY KEY, data BLOB NOT NULL)") }
            let fileSize = { (try? FileManager.default.attributesOfItem(atPath: directory.databasePath)[.size] as? Int) ?? 0 }
            let before = fileSize()
            for index in 0..<600 {
                try await database.write { try $0.execute("INSERT INTO blobs (id, data) VALUES (?, ?)", [index, [UInt8](repeating: 7, count: 2048)]) }
            }
            var after = fileSize()
            for _ in 0..<100 where after < before + 600 * 2048 {
                try await Task.sleep(for: .milliseconds(100))
                after = fileSize()
            }
            #expect(after >= before + 600 * 2048, "the database file grew from \(before) to \(after) bytes")
            let count = try await database.read { try $0.queryOne("SELECT count(*) AS n FROM blobs")?.int("n") }
            #expect(count == 600)
        }
    }

    @Test("Closing the database inside a write while a RESTART waits for the writer's queue returns")
    func closeInsideAWriteWhileARestartWaits() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // A 16-page bound: one commit of 100 pages starts a checkpoint that goes straight to its
        // RESTART, which must wait for the writer's queue.
        let database = try SQLiteDatabase(path: directory.databasePath, readers: 1, walLimitBytes: 64 * 1024)
        try await database.write { try $0.execute("CREATE TABLE blobs (id INTEGER PRIMARY KEY, data BLOB NOT NULL)") }
        let large = Task {
            try await database.write { connection in
                for index in 0..<100 {
                    try connection.execute("INSERT INTO blobs (id, data) VALUES (?, ?)", [index, [UInt8](repeating: 7, count: 3000)])
                }
                Thread.sleep(forTimeInterval: 0.2)  // the next write queues meanwhile, for the next group
            }
        }
        try await Task.sleep(for: .milliseconds(50))
        // Runs right after the large commit, which started the checkpoint: its RESTART now waits
        // for this job, and waiting here for that checkpoint to end would wait for itself.
        try await database.write { connection in
            Thread.sleep(forTimeInterval: 0.3)
            database.close()
            try connection.execute("INSERT INTO blobs (id, data) VALUES (?, ?)", [100, [UInt8](repeating: 7, count: 10)])
        }
        try await large.value
        await #expect(throws: StorageError.self) { try await database.read { _ in 0 } }
    }
}
