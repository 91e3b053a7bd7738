import Dispatch
import Foundation
internal import CSQLite

extension SQLiteDatabase {
    /// Writes a consistent copy of the database to `destinationPath` while writes continue.
    ///
    /// The copy comes from a fresh read-only connection in one `sqlite3_backup_step`, so it is the
    /// snapshot at the moment the copy starts; the writer is never blocked (WAL). The copy is
    /// written to a temporary file beside the destination, synced, then renamed over it, so the
    /// destination is either the old file or a complete new one. The destination must not be open.
    /// - Throws: `StorageError` when a file cannot be opened, written or renamed.
    public func backup(to destinationPath: String) async throws {
        try checkOpen()
        let source = path
        let counter = counter
        let timeout = busyTimeoutMilliseconds
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            DispatchQueue.global(qos: .utility).async {
                continuation.resume(
                    with: Result {
                        try Self.copy(from: source, to: destinationPath, busyTimeout: timeout, counter: counter)
                    })
            }
        }
        logger.info("storage.backup.done", [("path", .string(path)), ("destination", .string(destinationPath))])
    }

    private static func copy(from source: String, to destination: String, busyTimeout: Int32, counter: ErrorCounter) throws {
        let directory = FileSystem.parentDirectory(of: destination)
        if let directory, let reason = FileSystem.createDirectories(directory) {
            throw counter.record(StorageError(resultCode: SQLITE_CANTOPEN, message: "backup: \(reason)"))
        }
        let temporary = "\(destination).tmp-\(UUID().uuidString)"
        var renamed = false
        defer {
            if !renamed {
                FileSystem.removeIfPresent(temporary)
                for suffix in ["-journal", "-wal", "-shm"] { FileSystem.removeIfPresent(temporary + suffix) }
            }
        }
        do {
            let from = try SQLiteConnection(path: source, readOnly: true, busyTimeoutMilliseconds: busyTimeout, counter: counter)
            let to = try SQLiteConnection(path: temporary, readOnly: false, busyTimeoutMilliseconds: busyTimeout, counter: counter)
            defer {
                to.close()
                from.close()
            }
            let toHandle = try to.openHandle()
            guard let raw = sqlite3_backup_init(toHandle, "main", try from.openHandle(), "main") else {
                throw to.error(sqlite3_extended_errcode(toHandle), sql: nil)
            }
            let backup = BackupHandle(handle: raw)
            let stepCode = backup.copyAll()
            let finishCode = backup.finish()
            guard stepCode == SQLITE_DONE else { throw to.error(stepCode, sql: nil) }
            try to.check(finishCode, sql: nil)
        }
        // The copy's connection has closed (its commit synced by SQLite; the copy keeps the
        // source's WAL flag, and closing checkpointed and removed its WAL), so the temporary file
        // is complete on its own. A WAL or shared-memory file left by an older destination would be
        // replayed onto the new one: remove them before the rename.
        FileSystem.removeIfPresent(destination + "-wal")
        FileSystem.removeIfPresent(destination + "-shm")
        if let reason = FileSystem.rename(temporary, to: destination) {
            throw counter.record(StorageError(resultCode: SQLITE_IOERR, message: "backup: \(reason)"))
        }
        renamed = true
        if let reason = FileSystem.syncDirectory(directory ?? ".") {
            throw counter.record(StorageError(resultCode: SQLITE_IOERR, message: "backup: \(reason)"))
        }
    }
}
