import Foundation
import Storage
import Synchronization

/// SQLite files migrated once per test process and copied for each test that wants a fresh
/// migrated database. Migrating a new file runs every migration's DDL (SQLite re-reads its
/// schema after each statement): tens of milliseconds in a debug build, and the parallel suites
/// open a database for nearly every test. A copy of the migrated file costs a file copy, and is
/// the same database: the template is made by the same `Migrator`, then closed, which checkpoints
/// its WAL into the file. A template is keyed by its migrations' ids and release, so two lists
/// never share one.
public enum MigratedSQLiteTemplate {
    private static let templates = Mutex<[String: String]>([:])
    private static let directory = NSTemporaryDirectory() + "tollgate-templates-" + UUID().uuidString

    /// Puts a database migrated by `migrator` at `path` (which must not exist yet).
    /// - Throws: `StorageError` when the template cannot be migrated, a file error when it cannot
    ///   be copied.
    public static func copy(_ migrator: Migrator, to path: String) throws {
        let template = try templatePath(for: migrator)
        try FileManager.default.copyItem(atPath: template, toPath: path)
    }

    /// The template for `migrator`, made on first use (callers wait for it under the lock: the
    /// first tests of a run would otherwise all migrate at once).
    private static func templatePath(for migrator: Migrator) throws -> String {
        let key = migrator.migrations.map(\.id).joined(separator: ",") + "|" + (migrator.release?.name ?? "")
        return try templates.withLock { templates -> String in
            if let path = templates[key] { return path }
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let path = directory + "/template-\(templates.count).sqlite"
            let database = try SQLiteDatabase(path: path, readers: 1)
            _ = try migrator.migrate(database)
            database.close()
            guard !FileManager.default.fileExists(atPath: path + "-wal") else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path + "-wal"])
            }
            templates[key] = path
            if templates.count == 1 { atexit { try? FileManager.default.removeItem(atPath: MigratedSQLiteTemplate.directory) } }
            return path
        }
    }
}
