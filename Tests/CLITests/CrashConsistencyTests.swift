import Foundation
import Storage
import TestSupport
import Testing

@Suite("A process killed mid-write leaves a valid database")
struct CrashConsistencyTests {
    @Test("SIGKILL during batched writes: integrity_check ok and no half-written batch", arguments: [0.05, 0.2, 0.5])
    func killMidWrite(delay: Double) async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/crash.sqlite"
        for round in 0..<3 {
            let child = ChildProcess("StorageCrashWriter", [path])
            try child.start()
            #expect(await child.waitForStdoutLine { $0 == "writing" } != nil, "writer did not start (round \(round))")
            try await Task.sleep(for: .milliseconds(Int(delay * 1000)))
            kill(child.pid, SIGKILL)
            let result = try await child.finish()
            #expect(result.status == SIGKILL)

            // Opening recovers the log and closing checkpoints it: blocking work, kept off the pool.
            let (integrity, items, counter) = try await offPool {
                let database = try SQLiteDatabase(path: path, readers: 1)
                defer { database.close() }
                return try database.readSync { connection in
                    (
                        try connection.queryOne("PRAGMA integrity_check")?[0],
                        try connection.queryOne("SELECT count(*) AS n FROM items")?.int("n"),
                        try connection.queryOne("SELECT value FROM counter WHERE id = 1")?.int("value")
                    )
                }
            }
            #expect(integrity == .text("ok"))
            #expect(items == counter, "a batch was half-written")
            #expect((counter ?? 0) > 0)
        }
    }
}
