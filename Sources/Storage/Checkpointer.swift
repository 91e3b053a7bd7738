import Dispatch
import Synchronization

/// Moves the WAL into the database file on its own connection and queue, so the fsyncs a
/// checkpoint needs never stall the writer (SQLite's automatic checkpoint would run them
/// inside a committing write). The writer reports its commits; past `threshold` of them a
/// PASSIVE checkpoint runs, which copies what no reader still needs and never blocks anyone.
final class Checkpointer: Sendable {
    private let slot: ConnectionSlot
    private let threshold: Int
    private let commitsSinceCheckpoint = Atomic<Int>(0)
    private let running = Atomic<Bool>(false)

    init(slot: ConnectionSlot, threshold: Int = 256) {
        self.slot = slot
        self.threshold = threshold
    }

    /// Called by the writer after `count` writes committed.
    func noteCommits(_ count: Int) {
        let total = commitsSinceCheckpoint.add(count, ordering: .relaxed).newValue
        guard total >= threshold,
            running.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged
        else { return }
        commitsSinceCheckpoint.store(0, ordering: .relaxed)
        slot.queue.async {
            // A failed passive checkpoint only means the WAL stays longer; the next one retries.
            _ = try? self.slot.connection.query("PRAGMA wal_checkpoint(PASSIVE)")
            self.running.store(false, ordering: .releasing)
        }
    }

    func close() { slot.close() }
}
