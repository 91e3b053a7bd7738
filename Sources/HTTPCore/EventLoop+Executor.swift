import Dispatch

/// The loop as its connections' task executor: a connection task (`Task(executorPreference:)`)
/// runs its jobs on the loop's thread, between polls. A job queued from another thread (a
/// database write's caller resumed by the writer) wakes the loop when it sleeps in `epoll_wait`.
extension EventLoop: TaskExecutor {
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        switch queue(job) {
        case .queued: break
        case .queuedAndWake: wakeUp()
        case .loopFinished: runElsewhere(job)
        }
    }

    /// After the thread has exited (a loop that stopped: the group's loops never do, but a loop of
    /// its own may stop under a task that still runs on it): its jobs still run, on Dispatch's
    /// threads, one at a time as the loop would run them.
    private func runElsewhere(_ job: UnownedJob) {
        let executor = asUnownedTaskExecutor()
        EventLoop.leftovers.async { job.runSynchronously(on: executor) }
    }

    /// What `queue` did with a job.
    private enum Queued { case queued, queuedAndWake, loopFinished }

    /// Queues `job` for the thread's next turn: `.queuedAndWake` when the thread sleeps in
    /// `epoll_wait` (the caller wakes it; later callers need not), `.loopFinished` (nothing
    /// queued) once the thread has exited.
    private func queue(_ job: UnownedJob) -> Queued {
        state.withLock { state in
            if state.finished { return .loopFinished }
            if job.priority.rawValue > EventLoop.defaultPriority { state.urgentJobs.append(job) } else { state.jobs.append(job) }
            guard state.sleepingUntil != 0 else { return .queued }
            // Awake from now on, as far as wakers can tell: one write to the eventfd is enough.
            state.sleepingUntil = 0
            return .queuedAndWake
        }
    }

    /// Jobs above this priority (the tests' fake remote hosts run `.high`) run before the others.
    static let defaultPriority = TaskPriority.medium.rawValue

    /// Hands the jobs queued when the thread exited to `runElsewhere`.
    func handOffLeftoverJobs() {
        let jobs = state.withLock { state in
            defer { state.jobs = []; state.urgentJobs = [] }
            return state.urgentJobs + state.jobs
        }
        for job in jobs { runElsewhere(job) }
    }

    /// Where the jobs of loops that have stopped run.
    private static let leftovers = DispatchQueue(label: "http-loop-leftovers")
}
