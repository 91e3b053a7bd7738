import Dispatch
import Synchronization

/// A connection together with the serial queue that is the only place it is used.
///
/// `@unchecked Sendable` is safe because `connection` is touched only by blocks running on
/// `queue`, which is serial: two threads never use it at once, and the queue's hand-offs order
/// every access.
final class ConnectionSlot: @unchecked Sendable {
    let queue: DispatchQueue
    let connection: SQLiteConnection
    private let onQueue = DispatchSpecificKey<Bool>()
    let counter: ErrorCounter
    /// Writes waiting for the next group commit (see `ConnectionSlot+GroupCommit.swift`).
    let pendingWrites = Mutex<PendingWrites>(PendingWrites())
    /// Where grouped writes wait, when that is being measured (`WriteWaits`).
    let waits: WriteWaits?

    init(label: String, connection: SQLiteConnection, counter: ErrorCounter, waits: WriteWaits? = nil) {
        queue = DispatchQueue(label: label)
        self.connection = connection
        self.counter = counter
        self.waits = waits
        queue.setSpecific(key: onQueue, value: true)
    }

    /// Whether the calling code runs on this slot's queue.
    var isCurrentQueue: Bool { DispatchQueue.getSpecific(key: onQueue) == true }

    /// Runs `work` on the queue, blocking the calling thread until it finishes.
    /// - Throws: `StorageError` (misuse) when called from a job already running on this queue,
    ///   which would otherwise deadlock; or what `work` throws.
    func performSync<T>(_ work: (SQLiteConnection) throws -> T) throws -> T {
        guard !isCurrentQueue else {
            throw counter.record(
                StorageError(
                    resultCode: 21,  // SQLITE_MISUSE
                    message: "a synchronous database call was made from inside another call on the same connection; "
                        + "use the SQLiteConnection passed to the closure instead"))
        }
        return try queue.sync { try work(connection) }
    }

    /// Closes the connection after the jobs already queued. Idempotent.
    func close() {
        if isCurrentQueue {
            queue.async { self.connection.close() }
        } else {
            queue.sync { connection.close() }
        }
    }
}
