import Dispatch
import Logging
import Synchronization

/// Moves the WAL into the database file on its own connection and queue, so the fsyncs a
/// checkpoint needs never stall the writer (SQLite's automatic checkpoint would run them
/// inside a committing write). The writer's connection reports the log's size after each
/// commit (`noteLog`); once `stepPages` have been appended since the last checkpoint began, a
/// PASSIVE checkpoint runs, which copies what no reader still needs and never blocks anyone.
/// Counting pages, not commits, keeps the log bounded for a few huge commits (an import) as for
/// many small ones.
///
/// Under steady load PASSIVE alone is not enough: the writer appends while it copies and some
/// reader is always inside the log, so SQLite never finds a moment to start the log over, and
/// the WAL file grows without bound. So once the log holds `restartPages`, a RESTART checkpoint
/// follows, between two of the writer's commits: writers wait while it copies what PASSIVE left
/// and waits for the readers still in the log (new readers read the database file), and the
/// next write starts the log from the beginning. On a large file that copy is random writes
/// and an fsync, so PASSIVE passes, which hold no one, first catch up until one begins with
/// little appended since the last (`restartRemainderPages`), and the RESTART is left only that.
/// A writer faster than those passes gets its RESTART once the log holds twice its bound, and a
/// synchronous one (`writeSync`: the CLI, an import) waits for a checkpoint at four times.
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
    /// At most this many PASSIVE passes before a RESTART.
    static let catchUpPasses = 8
    /// A RESTART follows once a pass began with at most this many pages appended since the last.
    static let restartRemainderPages: Int64 = 256
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
        guard var logged = passive(), logged >= restartPages,
            MonotonicClock.now() >= restartNotBefore.load(ordering: .relaxed)
        else { return }
        // RESTART holds writers while it copies what the last pass left. Passes that hold no one
        // come first, until one starts with little appended since the one before it began, or
        // until the log has doubled its bound (a writer faster than the passes).
        var passes = 1
        while passes < Self.catchUpPasses, logged < 2 * restartPages {
            guard let next = passive() else { return }
            if next < restartPages { return }  // the log started over by itself
            let appended = next - logged
            logged = next
            passes += 1
            if appended <= Self.restartRemainderPages { break }
        }
        // Run between two group commits, as a job of the writer's queue: the write lock is free,
        // so back-to-back commits cannot starve the RESTART, and the writes that arrive meanwhile
        // wait in memory for the next group. The checkpointer's connection stays its own: its
        // queue is blocked here until the job ends.
        let restart = writer.queue.sync { try? slot.connection.queryOne("PRAGMA wal_checkpoint(RESTART)") }
        guard restart?[0] != .integer(0) else {
            restartFailures.store(0, ordering: .relaxed)
            return
        }
        if restartFailures.add(1, ordering: .relaxed).newValue >= Self.restartAttempts {
            restartFailures.store(0, ordering: .relaxed)
            restartNotBefore.store(MonotonicClock.now() + Self.restartBackoff, ordering: .relaxed)
        }
    }

    /// One PASSIVE checkpoint, then a sync of the database file; the pages in the log when it
    /// began, or nil when it failed.
    private func passive() -> Int64? {
        // One row: busy (0/1), pages in the log, pages copied into the database file.
        guard let row = try? slot.connection.queryOne("PRAGMA wal_checkpoint(PASSIVE)"), case .integer(let logged) = row[1],
            case .integer(let copied) = row[2]
        else { return nil }
        if copied == logged, latestPages.load(ordering: .relaxed) == logged { return logged }  // SQLite synced
        // SQLite syncs the file only when a checkpoint ends with nothing left in the log; under
        // steady writes none does, the copied pages pile up in the page cache (tens of MB at a
        // million purchases), and the RESTART synced them all while writers waited: up to 2.3 s
        // measured. Synced here, off the writer, the RESTART syncs only what it copies itself.
        guard (try? slot.connection.syncDatabaseFile()) != nil else { return nil }
        return logged
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
