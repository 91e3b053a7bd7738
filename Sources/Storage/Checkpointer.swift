import Dispatch
import Logging
import Synchronization

/// Moves the WAL into the database file, on a connection of its own, each checkpoint as a job of
/// the writer's queue, between two group commits. SQLite before 3.51.3 (Debian 12 ships 3.40.1)
/// can corrupt the file when a checkpoint on one connection runs while a commit on another
/// starts the log over (the "WAL-reset bug"; seen here once in a CI run as "database disk image
/// is malformed"). Run between commits, no checkpoint overlaps a commit of this process; held
/// under SQLite's write lock, nor one of another Tollgate process (`betweenCommits`).
///
/// What a checkpoint would make writers wait for is done off the writer's queue, on the
/// checkpointer's: the log is synced before each pass, so the pass's own sync of it finds
/// little left, and the database file after a pass that left it unsynced (`passive`).
///
/// The writer's connection reports the log's size after each commit (`noteLog`); once
/// `stepPages` have been appended since the last checkpoint began, a PASSIVE pass copies what no
/// reader still needs and waits for no one. Counting pages, not commits, keeps the log bounded
/// for a few huge commits (an import) as for many small ones.
///
/// Under steady load PASSIVE alone does not bound the file: some reader is always inside the
/// log, so SQLite never finds a moment to start it over, and the WAL file grows without bound.
/// So once the log holds `restartPages`, a RESTART follows the pass: it waits for the readers
/// still in the log (new readers read the database file), and the next write starts the log
/// from the beginning. A synchronous writer (`writeSync`: the CLI, an import) that outruns the
/// checkpoints waits for one once the log holds four times its bound.
///
/// The RESTART waits at most `lockWaitMilliseconds` for readers (writers wait meanwhile); past
/// that it gives up. After `restartAttempts` such failures in a row it waits `restartBackoff`
/// before trying again, so a long reader (a backup in another process) costs writers a few
/// short waits every few seconds, not one per checkpoint, while a reader that was merely slow
/// once does not let the log grow for seconds.
final class Checkpointer: Sendable {
    private let slot: ConnectionSlot
    private let writer: ConnectionSlot
    private let restartPages: Int64
    private let stepPages: Int64
    /// The log's size (pages) after the last commit.
    private let latestPages = Atomic<Int64>(0)
    /// The log's size (pages) when the last checkpoint was started.
    private let pagesAtLastCheckpoint = Atomic<Int64>(0)
    /// Monotonic time (ns) before which no RESTART is tried after one gave up.
    private let restartNotBefore = Atomic<UInt64>(0)
    private let restartFailures = Atomic<Int>(0)
    static let restartAttempts = 3
    static let restartBackoff: UInt64 = 5_000_000_000
    private let running = Atomic<Bool>(false)

    /// How long the checkpointer's connection waits for a lock.
    static let lockWaitMilliseconds: Int32 = 50

    /// `writer`: the writer's slot, on whose queue RESTARTs run; `restartPages`: the log's bound
    /// in pages; a checkpoint starts every sixteenth of it.
    init(slot: ConnectionSlot, writer: ConnectionSlot, restartPages: Int64) {
        self.slot = slot
        self.writer = writer
        self.restartPages = max(1, restartPages)
        stepPages = max(1, restartPages / 16)
    }

    /// Called on the writer's thread after each commit with the pages then in the log.
    func noteLog(pages: Int64) {
        latestPages.store(pages, ordering: .relaxed)
        var last = pagesAtLastCheckpoint.load(ordering: .relaxed)
        if pages < last {  // the log started over: count from its beginning
            last = 0
            pagesAtLastCheckpoint.store(0, ordering: .relaxed)
        }
        guard pages - last >= stepPages,
            running.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged
        else { return }
        pagesAtLastCheckpoint.store(pages, ordering: .relaxed)
        slot.queue.async {
            self.checkpoint()
            self.running.store(false, ordering: .releasing)
        }
    }

    /// Called by `writeSync` after its commit. A caller that writes faster than the checkpoints
    /// copy (an import, the seeding tool) waits here for one once the log holds four times its
    /// bound, so its log stays bounded however long it writes.
    func throttle() {
        guard latestPages.load(ordering: .relaxed) >= 4 * restartPages else { return }
        slot.queue.sync { checkpoint() }
    }

    /// A failed checkpoint only means the WAL stays longer; the next one retries.
    private func checkpoint() {
        // Off the writer's queue, beside its commits: syncing a file is not a checkpoint.
        try? slot.connection.syncLogFile()
        guard let logged = passive(), logged >= restartPages,
            MonotonicClock.now() >= restartNotBefore.load(ordering: .relaxed)
        else { return }
        let restart = betweenCommits("PRAGMA wal_checkpoint(RESTART)", holdingWriteLock: false)
        guard restart?[0] != .integer(0) else {
            restartFailures.store(0, ordering: .relaxed)
            return
        }
        if restartFailures.add(1, ordering: .relaxed).newValue >= Self.restartAttempts {
            restartFailures.store(0, ordering: .relaxed)
            restartNotBefore.store(MonotonicClock.now() + Self.restartBackoff, ordering: .relaxed)
        }
    }

    /// One PASSIVE pass, then a sync of the database file when SQLite left it unsynced; the
    /// pages in the log when it began, or nil when it failed.
    private func passive() -> Int64? {
        // One row: busy (0/1), pages in the log, pages copied into the database file.
        guard let row = betweenCommits("PRAGMA wal_checkpoint(PASSIVE)", holdingWriteLock: true), case .integer(let logged) = row[1],
            case .integer(let copied) = row[2]
        else { return nil }
        if copied == logged { return logged }  // SQLite synced the file: the pass left nothing
        // SQLite syncs the file only when a pass leaves nothing in the log; while a reader keeps
        // an old snapshot none does, the copied pages pile up in the page cache (tens of MB at a
        // million purchases), and the RESTART synced them all while writers waited: up to 2.3 s
        // measured. Synced here, off the writer, the RESTART syncs only what it copies itself.
        guard (try? slot.connection.syncDatabaseFile()) != nil else { return nil }
        return logged
    }

    /// Runs a checkpoint statement on this connection as a job of the writer's queue: between
    /// two group commits, never beside one (see the type's documentation). The writes that
    /// arrive meanwhile wait in memory for the next group. The checkpointer's own queue is
    /// blocked here until the job ends, so its connection is never used from two threads.
    ///
    /// A PASSIVE pass takes no lock that keeps other processes from committing (a CLI command
    /// writing beside `serve`), so the writer's connection holds SQLite's write lock around it, in
    /// a transaction that writes nothing; when another process holds the lock past the busy
    /// timeout, the pass does not run. A RESTART takes that lock itself, but when another process
    /// holds it past `lockWaitMilliseconds` SQLite runs it as a PASSIVE pass without the lock:
    /// the one case left in which a checkpoint can overlap another Tollgate process's commit.
    private func betweenCommits(_ sql: String, holdingWriteLock: Bool) -> Row? {
        writer.queue.sync {
            guard holdingWriteLock else { return try? slot.connection.queryOne(sql) }
            return try? writer.connection.transaction(.immediate) { _ in try slot.connection.queryOne(sql) }
        }
    }

    /// Closes the connection after the checkpoint under way. From the writer's queue (the
    /// database's deinit may run there) it does not wait: that checkpoint may be waiting for
    /// the writer's queue to run its RESTART.
    func close() {
        if writer.isCurrentQueue {
            slot.queue.async { self.slot.connection.close() }
        } else {
            slot.close()
        }
    }
}
