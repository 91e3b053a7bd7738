/// How a top-level transaction takes its locks.
public enum TransactionKind: Sendable {
    /// `BEGIN DEFERRED`: no lock until the first read, the write lock at the first write. For reads.
    case deferred
    /// `BEGIN IMMEDIATE`: the write lock at once, so a writer never fails half-way with
    /// `SQLITE_BUSY_SNAPSHOT`. The default, and what `SQLiteDatabase.write` uses.
    case immediate
}
