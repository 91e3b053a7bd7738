import Foundation
import Storage

/// The reconciler's book, one row per provider (`stripe`, `app_store`, `play_store`): where its
/// catch-up read got to (`cursorAt`, and a page token when a bounded run stopped mid-window), which
/// instance holds the run (a lease, so N instances never do the same work twice), and what the
/// runs found. Every method runs inside the caller's transaction.
public enum ReconcileLedger {
    /// A provider's row as stored.
    public struct Entry: Sendable, Equatable {
        public var provider: String
        /// Where the next catch-up read starts (the change time it reached).
        public var cursorAt: Date?
        /// A page token of a window a bounded run did not finish, and that window's end.
        public var pageToken: String?
        public var windowEnd: Date?
        public var claimedBy: String?
        public var claimedUntil: Date?
        public var lastRunAt: Date?
        /// `ok`, `unavailable` (the provider could not be reached: retried at the next run) or `failed`.
        public var lastOutcome: String?
        public var lastError: String?
        public var lastChecked: Int
        public var lastChanges: Int
        public var runs: Int
        public var checkedTotal: Int
        public var changesTotal: Int
    }

    /// What one run of a provider did, to record.
    public struct RunRecord: Sendable, Equatable {
        public var outcome: String
        public var error: String?
        public var checked: Int
        public var changes: Int
        public var cursorAt: Date?
        public var pageToken: String?
        public var windowEnd: Date?

        public init(
            outcome: String, error: String? = nil, checked: Int, changes: Int, cursorAt: Date?, pageToken: String? = nil,
            windowEnd: Date? = nil
        ) {
            self.outcome = outcome
            self.error = error
            self.checked = checked
            self.changes = changes
            self.cursorAt = cursorAt
            self.pageToken = pageToken
            self.windowEnd = windowEnd
        }
    }

    /// Takes the run of `provider` for `instance` until `until`, unless a run (of any instance,
    /// this one included) holds an unexpired lease. True when taken. A lease left by a dead
    /// instance expires by itself.
    public static func claim(provider: String, instance: String, until: Date, now: Date, on connection: Connection) throws -> Bool {
        try connection.execute(
            "INSERT INTO reconcile_state (provider) VALUES (?) ON CONFLICT (provider) DO NOTHING", [provider])
        return try connection.run(
            """
            UPDATE reconcile_state SET claimed_by = ?, claimed_until = ?
            WHERE provider = ? AND (claimed_until IS NULL OR claimed_until <= ?)
            """,
            [instance, Timestamp.milliseconds(until), provider, Timestamp.milliseconds(now)]) == 1
    }

    /// Ends `instance`'s run of `provider`: records what it did and gives the lease back. A run
    /// whose lease another instance took over (it ran past `until`) records nothing.
    public static func finish(provider: String, instance: String, _ run: RunRecord, now: Date, on connection: Connection) throws {
        try connection.execute(
            """
            UPDATE reconcile_state SET cursor_at = COALESCE(?, cursor_at), page_token = ?, window_end = ?, claimed_by = NULL,
                claimed_until = NULL, last_run_at = ?, last_outcome = ?, last_error = ?, last_checked = ?, last_changes = ?,
                runs = runs + 1, checked_total = checked_total + ?, changes_total = changes_total + ?
            WHERE provider = ? AND claimed_by = ?
            """,
            [
                run.cursorAt.map(Timestamp.milliseconds), run.pageToken, run.windowEnd.map(Timestamp.milliseconds),
                Timestamp.milliseconds(now), run.outcome, run.error.map { String($0.prefix(500)) }, run.checked, run.changes,
                run.checked, run.changes, provider, instance
            ])
    }

    /// The row of `provider`, nil before its first run.
    public static func entry(_ provider: String, on connection: Connection) throws -> Entry? {
        try connection.queryOne("SELECT \(columns) FROM reconcile_state WHERE provider = ?", [provider]).map(Entry.init(row:))
    }

    /// Every provider's row, by name.
    public static func entries(on connection: Connection) throws -> [Entry] {
        try connection.query("SELECT \(columns) FROM reconcile_state ORDER BY provider").map(Entry.init(row:))
    }

    static let columns = """
        provider, cursor_at, page_token, window_end, claimed_by, claimed_until, last_run_at, last_outcome, last_error,
        last_checked, last_changes, runs, checked_total, changes_total
        """
}

extension ReconcileLedger.Entry {
    init(row: Row) throws {
        provider = try row.string("provider")
        cursorAt = Timestamp.date(try row.optionalInt64("cursor_at"))
        pageToken = try row.optionalString("page_token")
        windowEnd = Timestamp.date(try row.optionalInt64("window_end"))
        claimedBy = try row.optionalString("claimed_by")
        claimedUntil = Timestamp.date(try row.optionalInt64("claimed_until"))
        lastRunAt = Timestamp.date(try row.optionalInt64("last_run_at"))
        lastOutcome = try row.optionalString("last_outcome")
        lastError = try row.optionalString("last_error")
        lastChecked = Int(try row.int64("last_checked"))
        lastChanges = Int(try row.int64("last_changes"))
        runs = Int(try row.int64("runs"))
        checkedTotal = Int(try row.int64("checked_total"))
        changesTotal = Int(try row.int64("changes_total"))
    }
}
