/// How a write transaction is kept apart from the writes of other connections. SQLite has one
/// writer at a time, so there every write is serializable and this changes nothing; on PostgreSQL,
/// where several instances write at once, it picks the transaction's isolation level.
public enum WriteIsolation: Sendable {
    /// As if no other transaction ran: PostgreSQL's `SERIALIZABLE`. A transaction that would break
    /// that fails (SQLSTATE 40001, or 40P01 for a deadlock) and `write` runs its body again from
    /// the start, a bounded number of times. The default: every rule written for one writer holds.
    case serializable
    /// Each statement sees what was committed before it started: PostgreSQL's `READ COMMITTED`.
    /// Only for bodies that order themselves: a lock taken by their first statement (the
    /// migrator's advisory lock), or claims of work with `FOR UPDATE SKIP LOCKED`, which
    /// `SERIALIZABLE` would fail whenever two claimers scanned the same index pages. Deadlocks are
    /// still retried.
    case readCommitted
}
