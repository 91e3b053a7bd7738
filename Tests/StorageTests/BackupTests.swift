import Foundation
import Storage
import Testing

@Suite("Backup", .timeLimit(.minutes(2)))
struct BackupTests {
    @Test("a backup taken while writes continue opens, passes integrity_check and holds the data committed before it")
    func backupDuringWrites() async throws {
        try await withDatabase { database, directory in
            try await database.write { connection in
                try connection.execute("CREATE TABLE items (id TEXT PRIMARY KEY, batch BIGINT NOT NULL, payload BLOB NOT NULL)")
                for number in 0..<500 {
                    try connection.execute(
                        "INSERT INTO items (id, batch, payload) VALUES (?, ?, ?)",
                        ["before-\(number)", 0, [UInt8](repeating: UInt8(number % 256), count: 512)])
                }
            }
            let writer = Task {
                for number in 0..<300 {
                    try await database.write { connection in
                        try connection.execute(
                            "INSERT INTO items (id, batch, payload) VALUES (?, ?, ?)", ["during-\(number)", 1, [UInt8](repeating: 7, count: 512)])
                    }
                }
            }
            let destination = directory.path + "/backups/copy.sqlite"
            try await database.backup(to: destination)
            try await writer.value

            let copy = try SQLiteDatabase(path: destination)
            defer { copy.close() }
            let (integrity, before, total) = try await copy.read { connection in
                (
                    try connection.queryOne("PRAGMA integrity_check")?[0],
                    try connection.queryOne("SELECT COUNT(*) AS n FROM items WHERE batch = 0")?.int("n"),
                    try connection.queryOne("SELECT COUNT(*) AS n FROM items")?.int("n")
                )
            }
            #expect(integrity == .text("ok"))
            #expect(before == 500)
            #expect((total ?? 0) >= 500 && (total ?? 0) <= 800)
            // Only the copy is left in the backup directory: no temporary files.
            let files = try FileManager.default.contentsOfDirectory(atPath: directory.path + "/backups")
            #expect(files.allSatisfy { !$0.contains(".tmp-") })
            // The live database went on to take every write.
            #expect(try await database.read { try $0.queryOne("SELECT COUNT(*) AS n FROM items")?.int("n") } == 800)
        }
    }

    @Test("a backup replaces an older file at the destination")
    func backupReplaces() async throws {
        try await withDatabase { database, directory in
            try await database.write { try $0.execute("CREATE TABLE items (id TEXT PRIMARY KEY)") }
            let destination = directory.path + "/copy.sqlite"
            try await database.backup(to: destination)
            try await database.write { try $0.execute("INSERT INTO items (id) VALUES (?)", ["second"]) }
            try await database.backup(to: destination)
            let copy = try SQLiteDatabase(path: destination)
            defer { copy.close() }
            #expect(try copy.readSync { try $0.query("SELECT id FROM items") }.count == 1)
        }
    }

    @Test("a backup to an impossible destination fails with a StorageError")
    func backupFailure() async throws {
        try await withDatabase { database, directory in
            let blocker = directory.path + "/file"
            #expect(FileManager.default.createFile(atPath: blocker, contents: Data()))
            let error = try await #require(throws: StorageError.self) {
                try await database.backup(to: blocker + "/copy.sqlite")
            }
            #expect(error.description.contains("backup"))
        }
    }
}
