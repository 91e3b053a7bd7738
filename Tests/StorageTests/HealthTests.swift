import Dispatch
import Foundation
import Storage
import TestSupport
import Testing

@Suite("Health", .timeLimit(.minutes(2)))
struct HealthTests {
    @Test("checkWritable succeeds on a healthy database and leaves the probe row")
    func writable() async throws {
        try await withDatabase { database, _ in
            try await database.checkWritable()
            try await database.checkWritable()
            let rows = try await database.read { try $0.query("SELECT checked_at FROM storage_write_probe") }
            #expect(rows.count == 1)
            #expect(try rows[0].int64("checked_at") > 1_600_000_000_000)
        }
    }

    @Test("checkWritable fails with isBusy while another connection holds the write lock")
    func busy() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let database = try SQLiteDatabase.makeTemporary(directory, busyTimeout: .milliseconds(200))
        defer { database.close() }
        // A second SQLiteDatabase on the same file plays another process holding the write lock.
        let other = try SQLiteDatabase.makeTemporary(directory)
        defer { other.close() }
        let (locked, lockedSignal) = AsyncStream<Void>.makeStream()
        let release = DispatchSemaphore(value: 0)
        let holder = Task {
            try await other.write { _ in
                lockedSignal.yield()
                _ = release.wait(timeout: .now() + 60)  // on the writer's Dispatch queue, not the pool
            }
        }
        var events = locked.makeAsyncIterator()
        await events.next()
        let before = database.errorCount
        let started = ContinuousClock.now
        let error = try await #require(throws: StorageError.self) { try await database.checkWritable() }
        let waited = ContinuousClock.now - started
        release.signal()
        try await holder.value
        #expect(error.isBusy)
        #expect(waited >= .milliseconds(200))  // the whole busy timeout, retried, before giving up
        #expect(error.description.contains("locked"))
        #expect(database.errorCount > before)
        try await database.checkWritable()
    }

    /// Tests run as root, so `chmod 0444` does not stop writes. The immutable attribute does
    /// (even through descriptors SQLite already has open), so this uses `chattr +i` (ext4 here).
    @Test("checkWritable fails when the database files cannot be written")
    func readOnlyFiles() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let database = try SQLiteDatabase.makeTemporary(directory)
        defer { database.close() }
        try await database.write { connection in
            try connection.execute("CREATE TABLE items (id TEXT PRIMARY KEY)")
            try connection.execute("INSERT INTO items (id) VALUES (?)", ["kept"])
        }
        let files = [directory.databasePath, directory.databasePath + "-wal"]
            .filter { FileManager.default.fileExists(atPath: $0) }
        #expect(files.count == 2)
        try await Self.withImmutable(files) {
            let before = database.errorCount
            let error = try await #require(throws: StorageError.self) { try await database.checkWritable() }
            #expect(!error.isBusy)
            #expect(!error.isConstraintViolation)
            #expect(error.primaryResultCode == 10 || error.isReadOnly)  // SQLITE_IOERR or SQLITE_READONLY
            #expect(database.errorCount > before)
            // Reads still work.
            #expect(try await database.read { try $0.query("SELECT id FROM items") }.count == 1)
        }
    }

    /// Runs `body` while `paths` carry the immutable attribute, removing it afterwards (also when
    /// `body` throws) so the temporary directory can be deleted. (`defer` cannot await.)
    private static func withImmutable(_ paths: [String], _ body: () async throws -> Void) async throws {
        try await chattr("+i", paths)
        do {
            try await body()
        } catch {
            try? await chattr("-i", paths)
            throw error
        }
        try? await chattr("-i", paths)
    }

    /// Runs `/usr/bin/chattr` off the concurrency pool.
    private static func chattr(_ flag: String, _ paths: [String]) async throws {
        let result = try await ChildProcessRunner.run("/usr/bin/chattr", [flag] + paths)
        guard result.status == 0 else {
            throw StorageError(resultCode: 1, message: "chattr \(flag) failed (needs root and ext4-like file system): \(result.stderrText)")
        }
    }
}
