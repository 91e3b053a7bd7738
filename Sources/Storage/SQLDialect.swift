import Foundation

/// Which SQL a connection speaks, for the few places where portable SQL is not enough: a
/// migration's column types, `FOR UPDATE [SKIP LOCKED]` on row locks and work claims, and the migrator's lock.
/// Everything else is written once (see CONVENTIONS.md) and runs on both.
public enum SQLDialect: String, Sendable {
    /// SQLite: one writer per file, so a claim needs no row locks.
    case sqlite
    /// PostgreSQL: several instances claim work at once.
    case postgresql

    /// What to append to the `SELECT` that picks rows to claim so that concurrent claimers take
    /// different rows and never wait on each other: `FOR UPDATE SKIP LOCKED` on PostgreSQL,
    /// nothing on SQLite (its single writer already serializes claims).
    public var skipLockedClause: String {
        switch self {
        case .sqlite: ""
        case .postgresql: " FOR UPDATE SKIP LOCKED"
        }
    }

    /// What to append to a `SELECT` of the row a write transaction is about to change so that
    /// concurrent writers of that row take turns: `FOR UPDATE` on PostgreSQL (at READ COMMITTED the
    /// read then returns what the last holder committed), nothing on SQLite (one writer).
    public var rowLockClause: String {
        switch self {
        case .sqlite: ""
        case .postgresql: " FOR UPDATE"
        }
    }

    /// A migration script in this dialect. The list is written in SQLite's spelling of the portable
    /// subset; PostgreSQL stores bytes as `BYTEA` and has no `WITHOUT ROWID` tables (every
    /// table is a heap with its primary key as an index).
    public func schemaScript(_ sql: String) -> String {
        switch self {
        case .sqlite:
            return sql
        case .postgresql:
            return
                sql
                .replacingOccurrences(of: " BLOB", with: " BYTEA")
                .replacingOccurrences(of: ") WITHOUT ROWID;", with: ");")
        }
    }
}
