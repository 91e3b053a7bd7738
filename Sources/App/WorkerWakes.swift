import Synchronization

/// How a use case that queued work wakes the worker that does it (mail, events, link-out reports,
/// answers to Apple's refund requests). `serve` binds each to its running worker (`Workers`); a
/// command that runs no worker leaves them unbound, and the service's own workers find the work
/// on their next look.
public final class WorkerWakes: Sendable {
    /// The workers a use case can wake.
    public enum Worker: Sendable, Hashable {
        case mail, events, linkOut, consumption
    }

    private let bound = Mutex<[Worker: @Sendable () -> Void]>([:])

    public init() {}

    /// From now on `wake(worker)` calls `wake`.
    public func bind(_ worker: Worker, to wake: @escaping @Sendable () -> Void) {
        bound.withLock { $0[worker] = wake }
    }

    /// Wakes `worker` if it runs in this process.
    public func wake(_ worker: Worker) {
        bound.withLock { $0[worker] }?()
    }

    /// A closure that wakes `worker`, for the use cases that take one.
    public func waker(_ worker: Worker) -> @Sendable () -> Void {
        { [self] in wake(worker) }
    }
}
