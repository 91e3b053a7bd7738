import Foundation
import Logging
import Storage
import Testing

/// SQLite before 3.51.3 has a race (the "WAL-reset bug"): a checkpoint on one connection that
/// runs while a commit on another starts the log over can record frames as copied that never
/// were, and the file is corrupt. This machine's SQLite (3.40.1) has it; a CI run saw it as
/// "database disk image is malformed". So no checkpoint may run beside a write of this process.
@Suite("Checkpoints never run beside a write of this process", .timeLimit(.minutes(2)))
struct CheckpointRaceTests {
    /// One row's payload: a page of its own.
    static let payload = [UInt8](repeating: 7, count: 3000)

    /// Creates `items` and commits 2,000 pages (8 MB) in one transaction: a pass follows, which
    /// must sync the log and copy them all, tens of milliseconds on a disk.
    static func commitPastAPass(_ database: SQLiteDatabase) async throws {
        try await database.write { try $0.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, payload BLOB NOT NULL)") }
        try await database.write { connection in
            for id in 0..<2000 { try connection.execute("INSERT INTO items (id, payload) VALUES (?, ?)", [id, payload]) }
        }
    }

    @Test("A checkpoint that a commit called for waits while the next write is open, then copies the log")
    func checkpointWaitsForTheOpenWrite() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.databasePath
        // A bound of 1 MB: a pass every 16 pages.
        let database = try SQLiteDatabase(path: path, readers: 1, walLimitBytes: 1 << 20)
        defer { database.close() }
        try await Self.commitPastAPass(database)
        // The next write holds the writer for 300 ms and watches the database file meanwhile.
        let (before, after) = try await database.write { connection in
            let before = TemporaryDirectory.size(path)
            Thread.sleep(forTimeInterval: 0.3)
            try connection.execute("INSERT INTO items (id, payload) VALUES (?, ?)", [-1, Self.payload])
            return (before, TemporaryDirectory.size(path))
        }
        #expect(after == before, "the database file grew from \(before) to \(after) bytes while a write was open")
        // Once the writer is free the pass runs: the file takes the 2,000 rows.
        var copied = TemporaryDirectory.size(path)
        for _ in 0..<600 where copied < 2000 * 3000 {  // at most 30 s: beside the parallel suites the disk is busy
            try await Task.sleep(for: .milliseconds(50))
            copied = TemporaryDirectory.size(path)
        }
        #expect(copied >= 2000 * 3000, "the database file holds \(copied) bytes")
        #expect(try database.readSync { try $0.queryOne("PRAGMA integrity_check")?[0] } == .text("ok"))
    }
}

extension CheckpointRaceTests {
    @Test("A checkpoint waits while another database on the same file (another process) has a write open")
    func checkpointWaitsForAnotherProcess() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.databasePath
        let database = try SQLiteDatabase(path: path, readers: 1, walLimitBytes: 1 << 20)
        defer { database.close() }
        // A second front on the file: its own connections and locks, as a CLI command has.
        let other = try SQLiteDatabase(path: path, readers: 1, walLimitBytes: 1 << 20)
        defer { other.close() }
        try await Self.commitPastAPass(database)
        // Right after, the other front opens a write and holds it for 400 ms, watching the file.
        // Holding SQLite's write lock, the pass either ran before this write or waits for it.
        let (before, after) = try await other.write { connection in
            let before = TemporaryDirectory.size(path)
            try connection.execute("INSERT INTO items (id, payload) VALUES (?, ?)", [-1, Self.payload])
            Thread.sleep(forTimeInterval: 0.4)
            return (before, TemporaryDirectory.size(path))
        }
        #expect(after == before, "the database file grew from \(before) to \(after) bytes while the other front's write was open")
        #expect(try database.readSync { try $0.queryOne("SELECT count(*) AS n FROM items")?.int("n") } == 2001)
    }
}

extension CheckpointRaceTests {
    @Test("The library's version tells whether it has the WAL-reset fix: 3.51.3 on, and the 3.50.7 and 3.44.6 backports")
    func walResetFixByVersion() {
        for fixed: Int32 in [3_051_003, 3_052_000, 3_053_000, 3_050_007, 3_050_009, 3_044_006] {
            #expect(SQLiteLibrary.hasWALResetFix(fixed), "\(fixed)")
        }
        for affected: Int32 in [3_040_001, 3_044_005, 3_045_000, 3_046_001, 3_050_006, 3_051_000, 3_051_002, 3_007_000] {
            #expect(!SQLiteLibrary.hasWALResetFix(affected), "\(affected)")
        }
        #expect(SQLiteLibrary.version.hasPrefix("3."))
    }

    @Test("Opening a database names the SQLite it runs on, and warns when that one lacks the WAL-reset fix")
    func openingWarnsOnAnAffectedLibrary() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let sink = MemoryLogSink()
        let database = try SQLiteDatabase(path: directory.databasePath, readers: 1, logger: Logger(sink: sink))
        database.close()
        let opened = try #require(sink.lines.first { $0.contains("storage.opened") })
        #expect(opened.contains("\"sqlite\":\"\(SQLiteLibrary.version)\""), "\(opened)")
        let warnings = sink.lines.filter { $0.contains("storage.sqlite_without_wal_reset_fix") }
        #expect(warnings.count == (SQLiteLibrary.hasWALResetFix ? 0 : 1), "\(sink.lines)")
    }
}
