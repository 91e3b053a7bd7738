extension SQLConnection {
    /// Waits until no other transaction holds `key`, then holds it until this transaction ends
    /// (PostgreSQL: `pg_advisory_xact_lock` on this class and `hashtext(key)`; a hash collision
    /// only makes two keys wait on each other). For a write at `READ COMMITTED` that reads, then
    /// writes what a natural key names, including a row that does not exist yet: taken before
    /// the first read, every later statement sees what the key's last holder committed. SQLite's
    /// single writer already serializes every write: nothing to do there. Deferred
    /// (`executeDeferred`): it goes out with the next statement, which the server runs after it.
    /// - Throws: `StorageError` (55P03 after `lock_timeout`, 40P01 for a deadlock, which `write` retries).
    public func lockKey(_ key: String) throws {
        guard dialect == .postgresql else { return }
        try executeDeferred("SELECT pg_advisory_xact_lock(CAST(? AS INTEGER), hashtext(?))", [keyLockClass, key])
    }
}

/// The advisory lock class of `lockKey` ("tgky" in ASCII), apart from the migrator's.
let keyLockClass: Int32 = 0x7467_6B79
