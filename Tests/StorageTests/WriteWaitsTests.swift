import Dispatch
import Logging
@testable import Storage
import Testing

@Suite("Write waits: where the writer's callers spend their time (debug measure)")
struct WriteWaitsTests {
    @Test("every grouped write is counted once in each stage, and every group by its size")
    func countsEachWrite() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let waits = WriteWaits()
        let slot = try await Self.slotWithItems(in: directory, waits: waits)
        defer { slot.close() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<40 {
                group.addTask { try await slot.performGrouped { try $0.execute("INSERT INTO items (id) VALUES (?)", [index]) } }
            }
            try await group.waitForAll()
        }
        let sink = MemoryLogSink()
        waits.log(to: Logger(sink: sink))
        let line = try #require(sink.lines.first { $0.contains("storage.write_waits") })
        for stage in ["queued", "transaction", "resumed"] {
            #expect(line.contains("\"\(stage)\":\"") && Self.count(of: stage, in: line) == 41, "\(stage): \(line)")
        }
        // 41 writes in one group or several: the groups' count is at least 1 and at most 41.
        let groups = Self.count(of: "group_sizes", in: line)
        #expect(groups >= 1 && groups <= 41, "\(line)")
    }

    @Test("a group commit applies at most 16 writes: 40 that queued behind a busy writer commit in three groups")
    func groupsAreCapped() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let waits = WriteWaits()
        let slot = try await Self.slotWithItems(in: directory, waits: waits)
        defer { slot.close() }
        // The writer's queue is held until all 40 writes wait for it.
        let release = DispatchSemaphore(value: 0)
        slot.queue.async { release.wait() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<40 {
                group.addTask { try await slot.performGrouped { try $0.execute("INSERT INTO items (id) VALUES (?)", [index]) } }
            }
            while slot.pendingWrites.withLock({ $0.jobs.count }) < 40 { try await Task.sleep(for: .milliseconds(5)) }
            release.signal()
            try await group.waitForAll()
        }
        let sink = MemoryLogSink()
        waits.log(to: Logger(sink: sink))
        let line = try #require(sink.lines.first { $0.contains("storage.write_waits") })
        #expect(line.contains("le 16.0: 2, le 32.0: 0, le 64.0: 0"), "two groups of 16 (and one of 8, and the CREATE alone): \(line)")
        #expect(Self.count(of: "group_sizes", in: line) == 4, "\(line)")
    }

    /// A writer slot on a fresh database file, measured by `waits`, with an `items` table made
    /// by one grouped write.
    private static func slotWithItems(in directory: TemporaryDirectory, waits: WriteWaits) async throws -> ConnectionSlot {
        let database = try SQLiteDatabase.makeTemporary(directory)
        database.close()  // creates the file; the slot writes to it alone
        let slot = ConnectionSlot(
            label: "write-waits-test",
            connection: try SQLiteConnection(path: directory.databasePath, readOnly: false, busyTimeoutMilliseconds: 5000, counter: ErrorCounter()),
            counter: ErrorCounter(), waits: waits)
        try await slot.performGrouped { try $0.execute("CREATE TABLE items (id INTEGER PRIMARY KEY)") }
        return slot
    }

    /// The `count:` of `stage`'s histogram in the logged line.
    private static func count(of stage: String, in line: String) -> Int {
        guard let start = line.range(of: "\"\(stage)\":\"") else { return -1 }
        let rest = line[start.upperBound...]
        guard let end = rest.firstIndex(of: "\""), let countRange = rest[..<end].range(of: "count: ") else { return -1 }
        return Int(rest[countRange.upperBound..<end].prefix { $0.isNumber }) ?? -1
    }
}
