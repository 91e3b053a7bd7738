internal import Glibc
internal import CLinux
internal import Foundation
import Logging
import Synchronization

/// What ended a wait on the event loop.
enum WaitResult: Sendable {
    /// The socket became ready (or reported an error/hang-up the next system call will show).
    case ready
    /// The deadline passed first.
    case timedOut
    /// The server is shutting down and this wait may not continue.
    case shutdown
    /// The peer closed and left nothing to read while a read waited: the event loop closed the
    /// socket and reported the connection gone (`start`'s `gone`), without waiting for the task to
    /// be scheduled. The caller must not touch the descriptor again (its number may be reused).
    case peerGone
}

/// An epoll thread that is also its connections' executor. Connection tasks run on it
/// (`Task(executorPreference:)`, see `EventLoop+Executor.swift`) and park on it with
/// `wait(...)`; the thread resumes their continuations when the socket is ready or the deadline
/// passes, and runs the jobs that resumes and other threads queue before it polls again. So a
/// request whose socket is ready is read, answered and parked on one thread, with no hand-off
/// to another. The server's listening loop runs no connection: it only accepts.
///
/// A connection's socket is registered once, edge-triggered (`register`): a wait costs no
/// `epoll_ctl`, and an event that finds no waiter is remembered for the next wait. The table of
/// waiters is the only shared state (behind a `Mutex`). Deadlines are kept in the waiters; the
/// thread sleeps until the earliest one and scans only when it is due.
final class EventLoop: Sendable {
    struct Waiter {
        let continuation: UnsafeContinuation<WaitResult, Never>
        let deadline: UInt64
        /// An idle keep-alive wait, ended at once when draining begins.
        let idle: Bool
        /// The socket of a read wait, which the loop closes itself when its peer is gone.
        let readFD: Int32?
        /// Whether the task does nothing with the socket until resumed, so the loop may close it:
        /// a read wait from the start (it needs no `epoll_ctl`).
        var armed = false
    }

    struct State {
        var waiters: [UInt64: Waiter] = [:]
        /// No waiter has an earlier deadline (it may be stale-early; a scan fixes it).
        var earliestDeadline = UInt64.max
        /// The time the thread's current `epoll_wait` ends; 0 while it is awake.
        var sleepingUntil: UInt64 = 0
        var draining = false
        var forced = false
        var closeListenerRequested = false
        var listenerClosedWaiters: [UnsafeContinuation<Void, Never>] = []
        var stopRequested = false
        /// Connections with an event no read waited for (their next read wait returns at once).
        var arrived: Set<UInt64> = []
        /// Connections whose peer sent its FIN (or reset): every read wait of theirs returns at
        /// once until the socket is deregistered. A FIN that came with data raises no new event
        /// once that data is read, and a short read says nothing about it.
        var peerClosed: Set<UInt64> = []
        var finished = false
        var finishedWaiters: [UnsafeContinuation<Void, Never>] = []
        /// Jobs of the tasks that run on this loop, in the order queued (`enqueue`); jobs of a
        /// higher priority than the default (the tests' fake remote hosts) go first.
        var jobs: [UnownedJob] = []
        var urgentJobs: [UnownedJob] = []
        /// The servers whose connections run on this loop, by tag (`EventLoop.server(of:)`).
        var servers: [UInt64: ServerHooks] = [:]
        /// Servers draining, or forced to stop: as `draining` and `forced`, for their connections only.
        var drainingServers: Set<UInt64> = []
        var forcedServers: Set<UInt64> = []

        /// Whether a wait of connection `id` may start now.
        func admits(id: UInt64, idle: Bool) -> Bool {
            if forced || finished { return false }
            let server = EventLoop.server(of: id)
            if !forcedServers.isEmpty && forcedServers.contains(server) { return false }
            guard idle else { return true }
            return !draining && (drainingServers.isEmpty || !drainingServers.contains(server))
        }
    }

    static let listenerToken = UInt64.max
    /// Timer granularity in nanoseconds.
    static let tick: UInt64 = 25_000_000
    static let wakeToken = UInt64.max - 1

    private let epollFD: Int32
    private let wakeFD: Int32
    /// Shared with the loop's extensions (`EventLoop+Executor`, `EventLoop+Servers`).
    let state = Mutex(State())
    /// The name of the loop's thread (as `top -H` shows it).
    private let name: String

    /// - Throws: `HTTPServerError` when the epoll instance or its wake-up eventfd cannot be made.
    init(name: String = "http-epoll") throws(HTTPServerError) {
        self.name = name
        let epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epollFD >= 0 else { throw HTTPServerError("cannot create epoll instance", errno: errno) }
        let wakeFD = eventfd(0, Int32(EFD_CLOEXEC) | Int32(EFD_NONBLOCK))
        guard wakeFD >= 0 else {
            let number = errno
            close(epollFD)
            throw HTTPServerError("cannot create eventfd", errno: number)
        }
        self.epollFD = epollFD
        self.wakeFD = wakeFD
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.u64 = EventLoop.wakeToken
        guard epoll_ctl(epollFD, EPOLL_CTL_ADD, wakeFD, &event) == 0 else {
            let number = errno
            close(wakeFD)
            close(epollFD)
            throw HTTPServerError("cannot register eventfd with epoll", errno: number)
        }
    }

    deinit {
        close(wakeFD)
        close(epollFD)
    }

    // MARK: Waiting (connection tasks)

    /// The events a connection's socket is registered for, from `register` until it closes:
    /// data, the peer's FIN or reset (`EPOLLRDHUP`), edge-triggered, so a wait costs no `epoll_ctl`.
    static let readInterest = EPOLLIN.rawValue | EPOLLRDHUP.rawValue | EPOLLET.rawValue

    /// Registers connection `id`'s socket once, before its first read. From then on every arrival
    /// (data, FIN, reset) is an event: one that finds no read waiting is remembered for the next
    /// `wait` (the caller read until `EAGAIN` or a short read first, so nothing arrives unseen), and a hang-up then
    /// goes to `start`'s `hangUp` at once: a client that leaves while its request is answered frees
    /// its slot of the client's cap. False when the socket cannot be registered.
    func register(fd: Int32, id: UInt64) -> Bool {
        var event = epoll_event()
        event.events = EventLoop.readInterest
        event.data.u64 = id
        return epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event) == 0
    }

    /// Parks the calling task until `fd` (registered with `register`) is readable (or writable),
    /// `deadline` (monotonic ns) passes, or shutdown ends the wait. Spurious `.ready` results are
    /// possible; callers retry. A read wait must follow a read that returned `EAGAIN`, or one that
    /// returned less than it asked for (a stream socket's read empties its queue before it stops).
    nonisolated(nonsending) func wait(fd: Int32, id: UInt64, writable: Bool, deadline: UInt64, idle: Bool) async -> WaitResult {
        let result = await withUnsafeContinuation { (continuation: UnsafeContinuation<WaitResult, Never>) in
            let (outcome, wake) = state.withLock { state -> (WaitResult?, Bool) in
                guard state.admits(id: id, idle: idle) else { return (.shutdown, false) }
                // Something arrived since the caller's last read: read again.
                if !writable, state.arrived.remove(id) != nil || (!state.peerClosed.isEmpty && state.peerClosed.contains(id)) {
                    return (.ready, false)
                }
                state.waiters[id] = Waiter(continuation: continuation, deadline: deadline, idle: idle, readFD: writable ? nil : fd, armed: !writable)
                if deadline < state.earliestDeadline { state.earliestDeadline = deadline }
                return (nil, deadline < state.sleepingUntil)
            }
            if let outcome {
                continuation.resume(returning: outcome)
                return
            }
            if writable {
                // Rare (a full send buffer): output joins the registration for this wait.
                var event = epoll_event()
                event.events = EventLoop.readInterest | EPOLLOUT.rawValue
                event.data.u64 = id
                if epoll_ctl(epollFD, EPOLL_CTL_MOD, fd, &event) != 0 {
                    // Let the caller's next system call report the problem.
                    if let waiter = state.withLock({ $0.waiters.removeValue(forKey: id) }) {
                        waiter.continuation.resume(returning: .ready)
                    }
                    return
                }
            }
            if wake { wakeUp() }
        }
        if writable {
            var event = epoll_event()
            event.events = EventLoop.readInterest
            event.data.u64 = id
            _ = epoll_ctl(epollFD, EPOLL_CTL_MOD, fd, &event)
        }
        return result
    }

    /// The bytes `fd` holds unread (`FIONREAD`); -1 when it cannot say (then it is left to its task).
    static func unreadBytes(_ fd: Int32) -> Int32 {
        var count: Int32 = 0
        return ioctl(fd, UInt(FIONREAD), &count) == 0 ? count : -1
    }

    /// Removes connection `id`'s socket `fd` from the epoll set; call before closing it.
    func deregister(fd: Int32, id: UInt64) {
        _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, nil)
        state.withLock { state in
            _ = state.arrived.remove(id)
            if !state.peerClosed.isEmpty { _ = state.peerClosed.remove(id) }
        }
    }

    // MARK: Shutdown steps (any thread)

    /// Ends idle keep-alive waits now and any later ones at once.
    func beginDraining() {
        let idle = state.withLock { state -> [Waiter] in
            state.draining = true
            return state.removeWaiters { _, waiter in waiter.idle }
        }
        for waiter in idle { waiter.continuation.resume(returning: .shutdown) }
    }

    /// Ends every wait now and any later ones at once.
    func forceShutdown() {
        let all = state.withLock { state -> [Waiter] in
            state.forced = true
            let all = Array(state.waiters.values)
            state.waiters = [:]
            return all
        }
        for waiter in all { waiter.continuation.resume(returning: .shutdown) }
    }

    /// Asks the thread to close the listening socket; returns once it has.
    func closeListener() async {
        await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
            let done = state.withLock { state -> Bool in
                if state.finished { return true }
                state.closeListenerRequested = true
                state.listenerClosedWaiters.append(continuation)
                return false
            }
            if done { continuation.resume() } else { wakeUp() }
        }
    }

    /// Asks the thread to exit; returns once it has.
    func stop() async {
        await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
            let done = state.withLock { state -> Bool in
                if state.finished { return true }
                state.stopRequested = true
                state.finishedWaiters.append(continuation)
                return false
            }
            if done { continuation.resume() } else { wakeUp() }
        }
    }

    /// Wakes the thread from `epoll_wait`.
    func wakeUp() {
        var one: UInt64 = 1
        _ = Glibc.write(wakeFD, &one, MemoryLayout<UInt64>.size)
    }

    // MARK: The thread

    /// Starts the epoll thread; `accept` is called on it for every accepted socket, `hangUp` with
    /// the id of every registered socket whose peer has sent FIN or reset while no read waited, `gone` with
    /// the id of every socket the loop closed because its peer left while a read waited.
    func start(
        listener: Int32, accept onAccept: @escaping @Sendable (Int32, String?) -> Void,
        hangUp onHangUp: @escaping @Sendable (UInt64) -> Void = { _ in },
        gone onGone: @escaping @Sendable (UInt64) -> Void = { _ in }
    ) throws(HTTPServerError) {
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.u64 = EventLoop.listenerToken
        guard epoll_ctl(epollFD, EPOLL_CTL_ADD, listener, &event) == 0 else {
            throw HTTPServerError("cannot register the listening socket with epoll", errno: errno)
        }
        startThread(listener: listener, onAccept: onAccept, onHangUp: onHangUp, onGone: onGone)
    }

    /// Starts the loop's thread on `listener` (-1: none).
    func startThread(
        listener: Int32, onAccept: @escaping @Sendable (Int32, String?) -> Void, onHangUp: @escaping @Sendable (UInt64) -> Void,
        onGone: @escaping @Sendable (UInt64) -> Void
    ) {
        let thread = Thread { [self] in
            // Named from inside: Foundation's `Thread.name` does not reach the kernel's name on Linux.
            _ = tollgate_name_this_thread(name)
            run(listener: listener, onAccept: onAccept, onHangUp: onHangUp, onGone: onGone)
            handOffLeftoverJobs()
        }
        thread.start()
    }

    private func run(listener: Int32, onAccept: (Int32, String?) -> Void, onHangUp: (UInt64) -> Void, onGone: (UInt64) -> Void) {
        let capacity = 256
        let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: capacity)
        defer { events.deallocate() }
        var ready: [(id: UInt64, events: UInt32)] = []
        var hungUp: [UInt64] = []
        let hangUpEvents = EPOLLRDHUP.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue
        let inputEvents = EPOLLIN.rawValue | hangUpEvents
        var resumptions: [(UnsafeContinuation<WaitResult, Never>, WaitResult)] = []
        var departures: [(id: UInt64, fd: Int32, continuation: UnsafeContinuation<WaitResult, Never>)] = []
        var listenerOpen = listener >= 0
        var listenerPausedUntil: UInt64 = 0
        var jobs: [UnownedJob] = []
        var urgentJobs: [UnownedJob] = []
        let executor = asUnownedTaskExecutor()
        while true {
            // The jobs queued so far (tasks resumed by the last turn, woken by other threads),
            // then a poll that does not sleep while more are queued.
            state.withLock { state in
                swap(&urgentJobs, &state.urgentJobs)
                swap(&jobs, &state.jobs)
            }
            for job in urgentJobs { job.runSynchronously(on: executor) }
            for job in jobs { job.runSynchronously(on: executor) }
            urgentJobs.removeAll(keepingCapacity: true)
            jobs.removeAll(keepingCapacity: true)
            let timeout = state.withLock { state -> Int32 in
                if !state.jobs.isEmpty || !state.urgentJobs.isEmpty {
                    state.sleepingUntil = 0
                    return 0
                }
                var until = state.earliestDeadline
                if listenerPausedUntil > 0 { until = min(until, listenerPausedUntil) }
                state.sleepingUntil = until
                if until == .max { return -1 }
                // Wake on 25 ms ticks so deadlines spread over time are expired in batches
                // (each expiry scans the waiters) instead of one scan per connection.
                until = until / EventLoop.tick &* EventLoop.tick &+ EventLoop.tick
                let now = MonotonicClock.now()
                if until <= now { return 0 }
                // Round up to whole milliseconds so we never wake just before a deadline.
                return Int32(clamping: (until - now + 999_999) / 1_000_000)
            }
            let count = epoll_wait(epollFD, events, Int32(capacity), timeout)
            var acceptable = false
            ready.removeAll(keepingCapacity: true)
            if count > 0 {
                for index in 0..<Int(count) {
                    let token = events[index].data.u64
                    switch token {
                    case EventLoop.listenerToken: acceptable = true
                    case EventLoop.wakeToken:
                        var value: UInt64 = 0
                        _ = Glibc.read(wakeFD, &value, MemoryLayout<UInt64>.size)
                    default: ready.append((token, events[index].events))
                    }
                }
            }
            let now = MonotonicClock.now()
            let (closeListener, stop) = state.withLock { state -> (Bool, Bool) in
                state.sleepingUntil = 0
                for (id, events) in ready {
                    if events & hangUpEvents != 0 { state.peerClosed.insert(id) }
                    if let waiter = state.waiters.removeValue(forKey: id) {
                        if let fd = waiter.readFD, waiter.armed, events & hangUpEvents != 0 {
                            departures.append((id, fd, waiter.continuation))
                        } else {
                            // A write wait woken by input: the next read wait must not miss it.
                            if waiter.readFD == nil && events & inputEvents != 0 { state.arrived.insert(id) }
                            resumptions.append((waiter.continuation, .ready))
                        }
                    } else {
                        // No task waits (its responder runs, or it has not read yet): the next read
                        // wait returns at once; a peer that left stops counting toward its cap now.
                        state.arrived.insert(id)
                        if events & hangUpEvents != 0 { hungUp.append(id) }
                    }
                }
                if now >= state.earliestDeadline {
                    var earliest = UInt64.max
                    var expired: [UInt64] = []
                    for (id, waiter) in state.waiters {
                        if waiter.deadline <= now { expired.append(id) } else { earliest = min(earliest, waiter.deadline) }
                    }
                    for id in expired {
                        if let waiter = state.waiters.removeValue(forKey: id) {
                            resumptions.append((waiter.continuation, .timedOut))
                        }
                    }
                    state.earliestDeadline = earliest
                }
                return (state.closeListenerRequested, state.stopRequested)
            }
            // A peer gone with nothing left to read: close here, so a storm of senders that close
            // does not wait for each connection's task to be scheduled before its socket is freed.
            // The task is parked in `wait` and owns nothing until resumed.
            for departure in departures {
                if EventLoop.unreadBytes(departure.fd) == 0 {
                    deregister(fd: departure.fd, id: departure.id)
                    close(departure.fd)
                    onGone(departure.id)
                    resumptions.append((departure.continuation, .peerGone))
                } else {
                    // Data came with the FIN (a last request, then a half-close): the task reads it.
                    resumptions.append((departure.continuation, .ready))
                }
            }
            departures.removeAll(keepingCapacity: true)
            for (continuation, result) in resumptions { continuation.resume(returning: result) }
            resumptions.removeAll(keepingCapacity: true)
            for id in hungUp { onHangUp(id) }
            hungUp.removeAll(keepingCapacity: true)

            // Closed before this turn accepts anything more: what the kernel still queues is reset
            // by the close, and everything accepted was accepted to be served.
            if listenerOpen && (closeListener || stop) {
                _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, listener, nil)
                close(listener)
                listenerOpen = false
                listenerPausedUntil = 0
                let waiters = state.withLock { state in
                    defer { state.listenerClosedWaiters = [] }
                    return state.listenerClosedWaiters
                }
                for waiter in waiters { waiter.resume() }
            }
            if listenerOpen && listenerPausedUntil > 0 && now >= listenerPausedUntil {
                listenerPausedUntil = 0
                setListener(listener, enabled: true)
            }
            if listenerOpen && acceptable && listenerPausedUntil == 0 {
                if !acceptAll(listener: listener, onAccept: onAccept) {
                    // Out of descriptors or memory: stop polling the listener briefly instead of spinning.
                    setListener(listener, enabled: false)
                    listenerPausedUntil = now + 100_000_000
                }
            }
            if stop { break }
        }
        let waiters = state.withLock { state in
            state.finished = true
            defer { state.finishedWaiters = []; state.listenerClosedWaiters = [] }
            return state.finishedWaiters + state.listenerClosedWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    private func setListener(_ listener: Int32, enabled: Bool) {
        var event = epoll_event()
        event.events = enabled ? EPOLLIN.rawValue : 0
        event.data.u64 = EventLoop.listenerToken
        _ = epoll_ctl(epollFD, EPOLL_CTL_MOD, listener, &event)
    }

    /// Accepts until the backlog is empty. Returns false when accepting must pause (EMFILE and the like).
    private func acceptAll(listener: Int32, onAccept: (Int32, String?) -> Void) -> Bool {
        while true {
            var address = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let fd = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    accept4(listener, $0, &length, Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue))
                }
            }
            if fd >= 0 {
                onAccept(fd, SocketAddress.text(of: &address))
                continue
            }
            switch errno {
            case EAGAIN, EWOULDBLOCK: return true
            case EINTR, ECONNABORTED, EPROTO, EPERM: continue
            case EMFILE, ENFILE, ENOBUFS, ENOMEM: return false
            default: return true
            }
        }
    }
}
