internal import Glibc

/// What a loop calls for a server whose connections it runs: the peer of connection `id` hung up
/// while its responder ran (`hangUp`), or left while a read waited and the loop closed the socket
/// (`gone`).
struct ServerHooks: Sendable {
    let hangUp: @Sendable (UInt64) -> Void
    let gone: @Sendable (UInt64) -> Void
}

/// Several servers on one loop: each connection id carries its server's tag in its high bits, so
/// draining or forcing one server ends only its own connections' waits.
extension EventLoop {
    /// The bits of a connection id below its server's tag.
    static let serverShift: UInt64 = 40

    /// The tag of the server that connection `id` belongs to (0 for a loop used on its own).
    static func server(of id: UInt64) -> UInt64 { id >> serverShift }

    /// The id before the first connection of server `tag`.
    static func firstConnectionID(of tag: UInt64) -> UInt64 { tag << serverShift }

    /// Lets the connections of server `tag` run here; `hooks` hear of their hang-ups and departures.
    func attach(server tag: UInt64, hooks: ServerHooks) {
        state.withLock { $0.servers[tag] = hooks }
    }

    /// Forgets server `tag` once it has stopped: later reports for its ids are dropped, and a
    /// task of it still inside a responder (a forced stop) may not wait again.
    func detach(server tag: UInt64) {
        state.withLock { state in
            state.servers[tag] = nil
            state.drainingServers.remove(tag)
            state.forcedServers.insert(tag)
        }
    }

    /// Ends the idle keep-alive waits of server `tag`'s connections now, and any later ones at once.
    func beginDraining(server tag: UInt64) {
        let idle = state.withLock { state -> [Waiter] in
            state.drainingServers.insert(tag)
            return state.removeWaiters { id, waiter in waiter.idle && EventLoop.server(of: id) == tag }
        }
        for waiter in idle { waiter.continuation.resume(returning: .shutdown) }
    }

    /// Ends every wait of server `tag`'s connections now, and any later ones at once.
    func forceShutdown(server tag: UInt64) {
        let all = state.withLock { state -> [Waiter] in
            state.forcedServers.insert(tag)
            return state.removeWaiters { id, _ in EventLoop.server(of: id) == tag }
        }
        for waiter in all { waiter.continuation.resume(returning: .shutdown) }
    }

    /// Starts the thread of a loop that accepts nothing: it runs and parks the connections of the
    /// servers attached to it.
    func startConnectionLoop() {
        startThread(
            listener: -1, onAccept: { fd, _ in _ = Glibc.close(fd) },
            onHangUp: { [self] id in hooks(of: id)?.hangUp(id) },
            onGone: { [self] id in hooks(of: id)?.gone(id) })
    }

    private func hooks(of id: UInt64) -> ServerHooks? {
        state.withLock { $0.servers[EventLoop.server(of: id)] }
    }
}

extension EventLoop.State {
    /// Removes and returns the waiters `matching`.
    mutating func removeWaiters(matching: (UInt64, EventLoop.Waiter) -> Bool) -> [EventLoop.Waiter] {
        let matched = waiters.filter { matching($0.key, $0.value) }
        for id in matched.keys { waiters[id] = nil }
        return Array(matched.values)
    }
}
