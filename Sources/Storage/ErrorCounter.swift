import Synchronization

/// Counts the `StorageError`s raised by one `SQLiteDatabase` (its connections, rows and own checks),
/// for `/metrics`. Sendable: the only state is an atomic.
final class ErrorCounter: Sendable {
    private let count = Atomic<Int>(0)

    /// Errors recorded so far.
    var value: Int { count.load(ordering: .relaxed) }

    /// Counts `error` and hands it back, so call sites read `throw counter.record(...)`.
    func record(_ error: StorageError) -> StorageError {
        count.add(1, ordering: .relaxed)
        return error
    }
}
