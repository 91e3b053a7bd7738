import Foundation

extension SQLiteDatabase {
    /// For `/readyz`: proves the database accepts a write by committing an upsert to the one-row
    /// `storage_write_probe` table on the writer connection (BEGIN IMMEDIATE, write, COMMIT).
    /// - Throws: `StorageError` when the write lock cannot be taken within the busy timeout
    ///   (`isBusy`), or the file, its WAL or its directory cannot be written.
    public func checkWritable() async throws {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        try await write { connection in
            try connection.execute(
                "CREATE TABLE IF NOT EXISTS storage_write_probe (id INTEGER PRIMARY KEY, checked_at BIGINT NOT NULL)")
            try connection.execute(
                "INSERT INTO storage_write_probe (id, checked_at) VALUES (1, ?) "
                    + "ON CONFLICT (id) DO UPDATE SET checked_at = excluded.checked_at",
                [now])
        }
    }
}
