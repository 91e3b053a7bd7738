import Foundation
import Glibc
import Storage
import Testing

/// The mode of a file, its permission bits only.
func permissionBits(_ path: String) -> mode_t? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return info.st_mode & 0o777
}

/// Issue 40, finding 7: the database, its `-wal` and `-shm`, and backups are created 0600 whatever
/// the umask (here a permissive 000, which would leave SQLite's own 0644 as is).
@Suite("Database files are private")
struct FileModeTests {
    @Test("A new database, its WAL and shared memory, and a backup are 0600 under umask 000")
    func privateUnderPermissiveUmask() async throws {
        let previous = umask(0)
        defer { umask(previous) }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let database = try SQLiteDatabase.makeTemporary(directory)
        try await database.write { connection in
            try connection.execute("CREATE TABLE items (id TEXT PRIMARY KEY)")
            try connection.execute("INSERT INTO items (id) VALUES (?)", ["a"])
        }
        _ = try await database.read { try $0.queryOne("SELECT COUNT(*) FROM items") }
        let path = directory.databasePath
        #expect(permissionBits(path) == 0o600)
        #expect(permissionBits(path + "-wal") == 0o600, "the WAL takes the database file's mode")
        #expect(permissionBits(path + "-shm") == 0o600, "the shared memory takes the database file's mode")
        let backup = directory.path + "/backups/copy.sqlite"
        try await database.backup(to: backup)
        database.close()
        #expect(permissionBits(backup) == 0o600)
    }
}
