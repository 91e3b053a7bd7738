import Dispatch
import Synchronization

/// A connection together with the serial queue that is the only place it is used.
///
/// `@unchecked Sendable` is safe because `connection` is touched only by blocks running on
/// `queue`, which is serial: two threads never use it at once, and the queue's hand-offs order
/// every access. `inFlight` is an atomic.
final class ConnectionSlot: @unchecked Sendable {
    let queue: DispatchQueue
    let connection: Connection
    private let onQueue = DispatchSpecificKey<Bool>()
    let counter: ErrorCounter
    /// Told how many writes a group commit made durable (the writer's checkpointer).
    let afterCommit: (@Sendable (Int) -> Void)?
    /// Writes waiting for the next group commit (see `ConnectionSlot+GroupCommit.swift`).
    let pendingWrites = Mutex<PendingWrites>(PendingWrites())
    /// Jobs queued or running here, so `Database` can send a read to the least busy reader.
    let inFlight = Atomic<Int>(0)

    init(label: String, connection: Connection, counter: ErrorCounter, afterCommit: (@Sendable (Int) -> Void)? = nil) {
        self.afterCommit = afterCommit
        queue = DispatchQueue(label: label)
        self.connection = connection
        self.counter = counter
        queue.setSpecific(key: onQueue, value: true)
    }

    /// Runs `work` on the queue and resumes the caller with its result: one hop there and back.
    func perform<T: Sendable>(_ work: @Sendable (Connection) throws -> T) async throws -> T {
        inFlight.add(1, ordering: .relaxed)
        defer { inFlight.subtract(1, ordering: .relaxed) }
        // `work` is only used until the continuation resumes, and the caller awaits that, so it
        // does not really escape. The job drops its reference before resuming, which is what
        // `withoutActuallyEscaping` verifies when it returns.
        return try await withoutActuallyEscaping(work) { escapable in
            let job = Job(escapable)
            return try await withCheckedThrowingContinuation { continuation in
                queue.async {
                    let result = job.run(self.connection)
                    continuation.resume(with: result)
                }
            }
        }
    }

    /// Runs `work` on the queue, blocking the calling thread until it finishes.
    /// - Throws: `StorageError` (misuse) when called from a job already running on this queue,
    ///   which would otherwise deadlock; or what `work` throws.
    func performSync<T>(_ work: (Connection) throws -> T) throws -> T {
        guard DispatchQueue.getSpecific(key: onQueue) != true else {
            throw counter.record(StorageError(
                resultCode: 21,  // SQLITE_MISUSE
                message: "a synchronous database call was made from inside another call on the same connection; "
                    + "use the Connection passed to the closure instead"))
        }
        inFlight.add(1, ordering: .relaxed)
        defer { inFlight.subtract(1, ordering: .relaxed) }
        return try queue.sync { try work(connection) }
    }

    /// Closes the connection after the jobs already queued. Idempotent.
    func close() {
        if DispatchQueue.getSpecific(key: onQueue) == true {
            queue.async { self.connection.close() }
        } else {
            queue.sync { connection.close() }
        }
    }
}

/// Holds a job's closure until it runs, then lets go of it before the caller is resumed.
/// `@unchecked Sendable`: `work` is written once at creation and read and cleared only on the
/// slot's serial queue.
private final class Job<T: Sendable>: @unchecked Sendable {
    private var work: (@Sendable (Connection) throws -> T)?

    init(_ work: @escaping @Sendable (Connection) throws -> T) {
        self.work = work
    }

    func run(_ connection: Connection) -> Result<T, any Error> {
        guard let work else {
            return .failure(StorageError(resultCode: 21, message: "a database job ran twice"))
        }
        self.work = nil
        return Result { try work(connection) }
    }
}
