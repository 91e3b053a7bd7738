internal import CSQLite

extension SQLiteConnection {
    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    /// Inside an open transaction this becomes a SAVEPOINT, so only the nested part is undone.
    /// - Throws: what `body` throws (after rolling back), or `StorageError` from BEGIN / COMMIT.
    public func transaction<T>(_ kind: TransactionKind = .immediate, _ body: (SQLiteConnection) throws -> T) throws -> T {
        let db = try openHandle()
        if sqlite3_get_autocommit(db) == 0 {
            return try savepoint(db, body)
        }
        try execute(kind == .immediate ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED")
        do {
            let result = try body(self)
            try execute("COMMIT")
            return result
        } catch {
            // SQLite may already have rolled back (some I/O errors, or body ran ROLLBACK itself).
            if sqlite3_get_autocommit(db) == 0 { try? execute("ROLLBACK") }
            throw error
        }
    }

    private func savepoint<T>(_ db: OpaquePointer, _ body: (SQLiteConnection) throws -> T) throws -> T {
        savepointDepth += 1
        defer { savepointDepth -= 1 }
        let name = "tollgate_savepoint_\(savepointDepth)"
        try execute("SAVEPOINT \(name)")
        do {
            let result = try body(self)
            try execute("RELEASE SAVEPOINT \(name)")
            return result
        } catch {
            // ROLLBACK TO undoes the nested changes but keeps the savepoint open; RELEASE drops it.
            if sqlite3_get_autocommit(db) == 0 {
                try? execute("ROLLBACK TO SAVEPOINT \(name)")
                try? execute("RELEASE SAVEPOINT \(name)")
            }
            throw error
        }
    }

    /// True while a transaction is open on this connection.
    public var isInTransaction: Bool {
        guard let db = try? openHandle() else { return false }
        return sqlite3_get_autocommit(db) == 0
    }
}
