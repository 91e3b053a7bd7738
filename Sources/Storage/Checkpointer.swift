import Dispatch
import Synchronization

/// Moves the WAL into the database file on its own connection and queue, so the fsyncs a
/// checkpoint needs never stall the writer (SQLite's automatic checkpoint would run them
/// inside a committing write). The writer reports its commits; past `threshold` of them a
/// PASSIVE checkpoint runs, which copies what no reader still needs and never blocks anyone.
///
/// Under steady load PASSIVE alone is not enough: the writer appends while it copies and some
/// reader is always inside the log, so SQLite never finds a moment to start the log over, and
/// the WAL file grows without bound. So once the log holds `restartFrames` pages, a RESTART
/// checkpoint follows: it holds writers back for the moment it takes to copy the rest and wait
/// for the readers still in the log (new readers read the database file), and the next write
/// starts the log from the beginning. It waits at most `lockWaitMilliseconds` for those readers
/// (writers wait meanwhile); past that it gives up. After `restartAttempts` such failures in a
/// row it waits `restartBackoff` before trying again, so a long reader (a backup in another
/// process) costs writers a few short waits every few seconds, not one per checkpoint, while a
/// reader that was merely slow once does not let the log grow for seconds.
final class Checkpointer: Sendable {
    private let slot: ConnectionSlot
    private let threshold: Int
    private let restartFrames: Int64
    private let commitsSinceCheckpoint = Atomic<Int>(0)
    /// Monotonic time (ns) before which no RESTART is tried after one gave up.
    private let restartNotBefore = Atomic<UInt64>(0)
    private let restartFailures = Atomic<Int>(0)
    static let restartAttempts = 3
    static let restartBackoff: UInt64 = 5_000_000_000
    private let running = Atomic<Bool>(false)

    /// How long the checkpointer's connection waits for a lock.
    static let lockWaitMilliseconds: Int32 = 50

    init(slot: ConnectionSlot, threshold: Int = 256, restartFrames: Int64) {
        self.slot = slot
        self.threshold = threshold
        self.restartFrames = restartFrames
    }

    /// Called by the writer after `count` writes committed.
    func noteCommits(_ count: Int) {
        let total = commitsSinceCheckpoint.add(count, ordering: .relaxed).newValue
        guard total >= threshold,
            running.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged
        else { return }
        commitsSinceCheckpoint.store(0, ordering: .relaxed)
        slot.queue.async {
            self.checkpoint()
            self.running.store(false, ordering: .releasing)
        }
    }

    /// A failed checkpoint only means the WAL stays longer; the next one retries.
    private func checkpoint() {
        // One row: busy (0/1), pages in the log, pages copied into the database file.
        guard let row = try? slot.connection.queryOne("PRAGMA wal_checkpoint(PASSIVE)"), case .integer(let logged) = row[1],
            logged >= restartFrames, DispatchTime.now().uptimeNanoseconds >= restartNotBefore.load(ordering: .relaxed)
        else { return }
        let restart = try? slot.connection.queryOne("PRAGMA wal_checkpoint(RESTART)")
        guard restart?[0] != .integer(0) else {
            restartFailures.store(0, ordering: .relaxed)
            return
        }
        if restartFailures.add(1, ordering: .relaxed).newValue >= Self.restartAttempts {
            restartFailures.store(0, ordering: .relaxed)
            restartNotBefore.store(DispatchTime.now().uptimeNanoseconds + Self.restartBackoff, ordering: .relaxed)
        }
    }

    func close() { slot.close() }
}
