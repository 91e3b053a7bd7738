import Dispatch
import Logging
import Synchronization

/// Group commit for the writer: writes that queue up while one transaction runs are applied
/// together in the next `BEGIN IMMEDIATE` … `COMMIT`, each in its own savepoint. A write that
/// throws rolls back only its savepoint; every caller resumes after the shared COMMIT, so a
/// result is never reported before it is durable. Under load this turns many small commits
/// (each appending its changed pages to the WAL) into one, which is where the writer's time
/// went; with a single caller it is an ordinary transaction.
struct PendingWrites: ~Copyable {
    var jobs: [any GroupedWrite] = []
    var drainScheduled = false
}

/// A write waiting for a group commit.
protocol GroupedWrite: AnyObject, Sendable {
    /// Runs the body inside the open transaction (in a savepoint) and keeps its outcome.
    func run(_ connection: SQLiteConnection)
    /// Resumes the caller: with the kept outcome, or with `commitError` when the COMMIT failed.
    func finish(commitError: (any Error)?)
}

/// One caller's write: its body until it runs, then its outcome until the commit.
/// `@unchecked Sendable`: `body` and the outcome are written and read only on the writer's serial
/// queue; the continuation is resumed exactly once, from that queue (`finish`), which is why an
/// unchecked continuation does: a checked one allocated a guard and, like a `Result`, looked up
/// its generic type's metadata on every write (about 3,000 instructions a repeat redemption).
final class GroupedWriteJob<T: Sendable>: GroupedWrite, @unchecked Sendable {
    private var body: (@Sendable (SQLiteConnection) throws -> T)?
    private var value: T?
    private var failure: (any Error)?
    private let continuation: UnsafeContinuation<T, any Error>
    /// This write's times, when `WriteWaits` measures them.
    private let clock: WriteClock?
    private let waits: WriteWaits?

    init(
        body: @escaping @Sendable (SQLiteConnection) throws -> T, continuation: UnsafeContinuation<T, any Error>,
        clock: WriteClock? = nil, waits: WriteWaits? = nil
    ) {
        self.body = body
        self.continuation = continuation
        self.clock = clock
        self.waits = waits
    }

    func run(_ connection: SQLiteConnection) {
        guard let body else { return }
        self.body = nil
        clock?.startedAt = MonotonicClock.now()
        do {
            value = try connection.transaction(.immediate, body)
        } catch {
            failure = error
        }
    }

    func finish(commitError: (any Error)?) {
        if let clock, let waits {
            clock.finishedAt = MonotonicClock.now()
            waits.record(clock)
        }
        if let error = commitError ?? failure {
            continuation.resume(throwing: error)
        } else if let value {
            self.value = nil
            continuation.resume(returning: value)
        } else {
            continuation.resume(throwing: StorageError(resultCode: 21, message: "a database write never ran"))
        }
    }
}

extension ConnectionSlot {
    /// The most writes one group commit applies; later ones wait for the next. Its COMMIT resumes
    /// them all at once, and they then queue for the cooperative pool's few threads: with up to
    /// 64 per group the last of them waited about as long to run again as it had waited for the
    /// writer. Groups of 16 cut that burst; the COMMITs they add cost less than the wait they save
    /// (docs/BENCHMARKS.md, 2026-11-27T20:25Z: repeat redemptions, p99 −8%, +13% req/s).
    static let maximumGroup = 16

    /// Runs `work` in the next group commit on this slot's connection.
    func performGrouped<T: Sendable>(_ work: @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        // `work` is only used until the continuation resumes, and the caller awaits that, so it
        // does not really escape: the job drops it on the queue before resuming the caller, which
        // is what `withoutActuallyEscaping` verifies when it returns.
        let clock = waits.map { _ in WriteClock(enqueuedAt: MonotonicClock.now()) }
        defer { if let clock, let waits { waits.record(resumedAfter: MonotonicClock.now() &- clock.finishedAt) } }
        return try await withoutActuallyEscaping(work) { escapable in
            try await withUnsafeThrowingContinuation { continuation in
                let job = GroupedWriteJob(body: escapable, continuation: continuation, clock: clock, waits: waits)
                let schedule = pendingWrites.withLock { pending -> Bool in
                    pending.jobs.append(job)
                    if pending.drainScheduled { return false }
                    pending.drainScheduled = true
                    return true
                }
                if schedule { queue.async { self.drainGroup() } }
            }
        }
    }

    /// Applies every waiting write in one transaction, then resumes their callers.
    private func drainGroup() {
        let jobs = pendingWrites.withLock { pending -> [any GroupedWrite] in
            let taken = Array(pending.jobs.prefix(Self.maximumGroup))
            pending.jobs.removeFirst(taken.count)
            return taken
        }
        waits?.record(groupSize: jobs.count)
        var commitError: (any Error)?
        if jobs.count == 1 {
            jobs[0].run(connection)
        } else if !jobs.isEmpty {
            do {
                try connection.transaction(.immediate) { connection in
                    for job in jobs {
                        job.run(connection)
                        // Some errors (I/O, disk full) make SQLite roll back the whole transaction:
                        // then no write of the group survived, and every caller must hear so.
                        guard connection.isInTransaction else {
                            throw StorageError(resultCode: 1, message: "the group transaction was rolled back by an earlier error")
                        }
                    }
                }
            } catch {
                commitError = error
            }
        }
        for job in jobs { job.finish(commitError: commitError) }
        let more = pendingWrites.withLock { pending -> Bool in
            if pending.jobs.isEmpty {
                pending.drainScheduled = false
                return false
            }
            return true
        }
        if more { queue.async { self.drainGroup() } }
    }
}
