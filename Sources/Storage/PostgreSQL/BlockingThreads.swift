import Foundation

/// A fixed set of threads that run blocking database calls for async callers, oldest first.
///
/// `PostgresDatabase` gives each of its pools as many threads as the pool has connections: a
/// call then begins as soon as a connection could serve it, never waiting for a thread to be
/// made (libdispatch's global queue adds about one a second once its threads block: in a storm
/// calls queued for seconds before reaching the pool), and a storm of calls waits as queued
/// closures, not as hundreds of threads blocked on the pool's lock.
///
/// `@unchecked Sendable`: `jobs`, `head` and `stopped` are read and written only with `condition`
/// locked; the threads are started once, in `init`.
final class BlockingThreads: @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [(() -> Void)?] = []
    private var head = 0
    private var stopped = false

    /// Starts `count` threads (at least one) named `name`.
    init(count: Int, name: String) {
        for _ in 0..<max(1, count) {
            let thread = Thread { [self] in work() }
            thread.name = name
            thread.start()
        }
    }

    /// Runs `job` on one of the threads and awaits its result; after `stop()`, fails with
    /// `stoppedError` without running it.
    func run<T: Sendable>(_ job: BlockingWork<T>, stoppedError: @autoclosure () -> any Error) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let accepted = enqueue { continuation.resume(with: job.run()) }
            if !accepted { continuation.resume(throwing: stoppedError()) }
        }
    }

    /// Lets the threads finish the jobs already queued, then end; later `run` calls fail.
    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    private func enqueue(_ job: @escaping () -> Void) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !stopped else { return false }
        jobs.append(job)
        condition.signal()
        return true
    }

    private func work() {
        while let job = next() { job() }
    }

    /// The oldest queued job, waiting for one; nil once stopped and drained.
    private func next() -> (() -> Void)? {
        condition.lock()
        defer { condition.unlock() }
        while head == jobs.count {
            if stopped { return nil }
            condition.wait()
        }
        let job = jobs[head]
        jobs[head] = nil
        head += 1
        // Drop the taken slots now and then, so a long storm does not grow the array forever.
        if head == jobs.count {
            jobs.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 1024, head * 2 >= jobs.count {
            jobs.removeFirst(head)
            head = 0
        }
        return job
    }
}
