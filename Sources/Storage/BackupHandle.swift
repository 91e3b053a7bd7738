internal import CSQLite

/// An `sqlite3_backup` in progress, finished when released.
/// Not Sendable: used on one thread from start to end.
final class BackupHandle {
    private var handle: OpaquePointer?

    init(handle: OpaquePointer) {
        self.handle = handle
    }

    /// Copies every remaining page in one step, so the whole copy comes from one read
    /// transaction on the source: a consistent snapshot, however many writes happen meanwhile.
    /// Returns the SQLite result code (`SQLITE_DONE` on success).
    func copyAll() -> Int32 {
        guard let handle else { return SQLITE_MISUSE }
        return sqlite3_backup_step(handle, -1)
    }

    /// Releases the backup; returns its result code. Idempotent.
    @discardableResult
    func finish() -> Int32 {
        guard let handle else { return SQLITE_OK }
        self.handle = nil
        return sqlite3_backup_finish(handle)
    }

    deinit {
        finish()
    }
}
