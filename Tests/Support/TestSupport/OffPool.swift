import Dispatch

/// Runs blocking `work` on a thread of its own and suspends the caller until it is done.
///
/// Swift's cooperative pool has one thread per core (two on the build machine). A test that blocks
/// one of them (waiting for a child process, reading a pipe, sleeping) stalls every other test's
/// tasks, among them the live HTTP servers of other suites, which then time out. Call sites
/// await this instead, so the pool thread is free while the work blocks.
///
/// The work runs on a fresh serial `DispatchQueue`, not on `DispatchQueue.global()`: on Linux the
/// global concurrent queues have one worker per core too and add a thread only about once a
/// second while their workers block, which would recreate the same stall one level down. A
/// serial queue runs on libdispatch's overcommitting pool, which starts a thread when none is idle.
///
/// The work runs outside the calling task: Swift Testing cannot attribute `#expect` or
/// `Issue.record` made inside it to a test. Return what the test needs and assert after `await`.
///
/// - Parameter work: the blocking work; it must not touch state the caller uses meanwhile.
/// - Returns: what `work` returns.
/// - Throws: what `work` throws (nothing when `work` cannot throw).
public func offPool<T: Sendable, Failure: Error>(
    _ work: @escaping @Sendable () throws(Failure) -> T
) async throws(Failure) -> T {
    let result: Result<T, Failure> = await withCheckedContinuation { continuation in
        DispatchQueue(label: "tollgate.tests.off-pool").async {
            continuation.resume(returning: Result { () throws(Failure) -> T in try work() })
        }
    }
    return try result.get()
}
