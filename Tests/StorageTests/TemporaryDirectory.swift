import Foundation
import Storage

/// A fresh directory under the system temp directory, removed by `remove()`.
struct TemporaryDirectory {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.path + "/storage-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// A database path inside a not-yet-existing subdirectory (SQLiteDatabase creates it).
    var databasePath: String { path + "/data/tollgate.sqlite" }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// The size of the file at `path` in bytes (0 when there is none).
    static func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
    }
}

extension SQLiteDatabase {
    /// A database on a fresh file for one test.
    static func makeTemporary(
        _ directory: TemporaryDirectory, readers: Int = 2, busyTimeout: Duration = .seconds(5)
    ) throws -> SQLiteDatabase {
        try SQLiteDatabase(path: directory.databasePath, readers: readers, busyTimeout: busyTimeout)
    }
}

/// Runs `body` with a database on a fresh temp file, closing and deleting it afterwards.
func withDatabase<T>(
    readers: Int = 2, busyTimeout: Duration = .seconds(5), _ body: (SQLiteDatabase, TemporaryDirectory) async throws -> T
) async throws -> T {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let database = try SQLiteDatabase.makeTemporary(directory, readers: readers, busyTimeout: busyTimeout)
    defer { database.close() }
    return try await body(database, directory)
}
