internal import Glibc
import Logging
import Synchronization

/// State shared by the `HTTPServer` object, the event loops and every connection task:
/// configuration, the responder, the loops and the table of open connections.
final class ServerCore: Sendable {
    let configuration: HTTPServerConfiguration
    let responder: any HTTPResponder
    let logger: Logger
    /// The loop that accepts; it runs no connection, so a busy responder never delays an accept.
    let listenerLoop: EventLoop
    /// The loops that run the connections (shared with the process's other servers).
    let group: EventLoopGroup
    /// This server's tag on those loops: the high bits of its connection ids.
    let tag: UInt64
    let port: Int
    let limits: HTTPRequestParser.Limits
    let headerTimeout: UInt64
    let bodyTimeout: UInt64
    let requestTimeout: UInt64
    let idleTimeout: UInt64
    let dates = HTTPDateCache()
    /// Set when graceful shutdown begins: responses then carry `Connection: close`.
    let draining = Atomic<Bool>(false)

    /// One open connection in the table.
    private struct Socket {
        /// Its descriptor, for a forced shutdown.
        let fd: Int32
        /// The client it counts for: the socket peer; nil for a trusted proxy's (not a client),
        /// or once the peer has hung up (`peerHungUp`).
        var client: String?
        /// Through a trusted proxy: the client of the request in flight, counted until answered
        /// (or until the proxy hangs up).
        var forwarded: String?
    }

    private struct ConnectionTable {
        /// Open connections by id.
        var sockets: [UInt64: Socket] = [:]
        /// Per client address: its open connections plus, when a trusted proxy forwards it, its
        /// requests in flight through the proxy; absent when none.
        var perClient: [String: Int] = [:]
        var nextID: UInt64 = 0
        /// Tasks waiting for the last connection to close (graceful shutdown), by waiter id.
        var idleWaiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        /// Waiters cancelled before they were stored.
        var cancelledWaiters: Set<UInt64> = []
        var nextWaiter: UInt64 = 0

        /// Takes one connection or request in flight off `client`'s count.
        mutating func release(_ client: String) {
            guard let index = perClient.index(forKey: client) else { return }
            if perClient.values[index] > 1 {
                perClient.values[index] -= 1
            } else {
                perClient.remove(at: index)
            }
        }

        /// Counts one more for `client` unless it holds `cap` already (one lookup: this runs for
        /// every request through a trusted proxy).
        mutating func admit(_ client: String, cap: Int) -> Bool {
            // A cap of none would leave a count of 0 behind.
            cap > 0 && Self.increment(&perClient[client, default: 0], below: cap)
        }

        private static func increment(_ count: inout Int, below cap: Int) -> Bool {
            guard count < cap else { return false }
            count += 1
            return true
        }
    }

    /// Why `accepted` turned a connection away.
    enum Refusal: Error {
        case connectionLimit, clientLimit

        var message: String {
            switch self {
            case .connectionLimit: "Too many open connections; try again later."
            case .clientLimit: "Too many open connections from your address; close some and try again."
            }
        }
    }

    private let table: Mutex<ConnectionTable>

    /// Tags of the servers made in this process (never reused).
    private static let tags = Atomic<UInt64>(0)

    init(
        configuration: HTTPServerConfiguration, responder: any HTTPResponder, logger: Logger, listenerLoop: EventLoop,
        group: EventLoopGroup, port: Int
    ) {
        let tag = ServerCore.tags.wrappingAdd(1, ordering: .relaxed).newValue
        self.tag = tag
        self.configuration = configuration
        self.responder = responder
        self.logger = logger
        self.listenerLoop = listenerLoop
        self.group = group
        table = Mutex(ConnectionTable(nextID: EventLoop.firstConnectionID(of: tag)))
        self.port = port
        limits = HTTPRequestParser.Limits(configuration)
        headerTimeout = MonotonicClock.nanoseconds(configuration.headerReadTimeout)
        bodyTimeout = MonotonicClock.nanoseconds(configuration.bodyReadTimeout)
        requestTimeout = MonotonicClock.nanoseconds(configuration.requestTimeout)
        idleTimeout = MonotonicClock.nanoseconds(configuration.keepAliveIdleTimeout)
    }

    var connectionCount: Int { table.withLock { $0.sockets.count } }

    /// Called on the listener's loop for each accepted socket: starts its task on the next loop, or answers 503
    /// when the server's connection cap or this client address's cap is reached. A trusted
    /// proxy's connections count only toward the server's cap (its clients are counted per
    /// request, `admitForwarded`).
    func accepted(fd: Int32, remoteAddress: String?) {
        let peer = remoteAddress ?? ""
        let proxy = configuration.clientAddressPolicy.map { remoteAddress != nil && $0.isTrustedProxy(peer) } ?? false
        let client: String? = proxy ? nil : peer
        let admission = table.withLock { table -> Result<UInt64, Refusal> in
            guard table.sockets.count < configuration.maxConnections else { return .failure(.connectionLimit) }
            if let client, !table.admit(client, cap: configuration.maxConnectionsPerClient) { return .failure(.clientLimit) }
            table.nextID += 1
            table.sockets[table.nextID] = Socket(fd: fd, client: client)
            return .success(table.nextID)
        }
        let id: UInt64
        switch admission {
        case .success(let admitted): id = admitted
        case .failure(let refusal):
            reject(fd: fd, remoteAddress: remoteAddress, refusal: refusal)
            return
        }
        var one: Int32 = 1
        // Responses are written whole; Nagle would only delay a 100 Continue's follow-up.
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        let loop = group.loop(for: id)
        Task(executorPreference: loop, priority: configuration.connectionPriority) {
            let connection = HTTPConnection(core: self, loop: loop, fd: fd, id: id, remoteAddress: remoteAddress, viaProxy: proxy)
            await connection.run()
        }
    }

    /// Forgets a connection; called by its task just before it closes the descriptor. The last
    /// one to go wakes whoever waits for the server to be idle.
    func remove(id: UInt64) {
        let waiters = table.withLock { table -> [CheckedContinuation<Void, Never>] in
            guard let socket = table.sockets.removeValue(forKey: id) else { return [] }
            if let client = socket.client { table.release(client) }
            if let forwarded = socket.forwarded { table.release(forwarded) }
            guard table.sockets.isEmpty else { return [] }
            defer { table.idleWaiters = [:] }
            return Array(table.idleWaiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Counts one request in flight from `client`, forwarded by a trusted proxy on connection
    /// `id`, toward that client's cap (shared with its own connections); false, counting nothing,
    /// when the client is at its cap. A true is undone by `releaseForwarded(id:)`, `peerHungUp`
    /// or `remove`, whichever comes first.
    func admitForwarded(client: String, id: UInt64) -> Bool {
        table.withLock { table in
            guard let socket = table.sockets.index(forKey: id), table.admit(client, cap: configuration.maxConnectionsPerClient) else {
                return false
            }
            table.sockets.values[socket].forwarded = client
            return true
        }
    }

    /// Ends the request in flight that `admitForwarded(client:id:)` counted, if still counted.
    func releaseForwarded(id: UInt64) {
        table.withLock { table in
            guard let socket = table.sockets.index(forKey: id), let forwarded = table.sockets.values[socket].forwarded else { return }
            table.sockets.values[socket].forwarded = nil
            table.release(forwarded)
        }
    }

    /// Called on the connection's event loop when its peer has sent FIN or reset while no read
    /// waited (its request being answered; `EventLoop.register`): the connection stops counting toward
    /// its client's cap (and a proxied request toward its client's) at once, while it stays open,
    /// and counted toward the server's cap, until its responder returns.
    ///
    /// Why that is safe: a peer that has sent FIN can send no further request, so what is left of
    /// the connection is bounded by the server (the responder, then one write under the body
    /// timeout), not by the client's pace. A client that only half-closed (`shutdown(SHUT_WR)`,
    /// legitimate in HTTP/1.1) looks the same until a write fails, and still gets its answer: it
    /// just no longer holds a slot of its cap meanwhile.
    func peerHungUp(id: UInt64) {
        table.withLock { table in
            guard let socket = table.sockets[id] else { return }
            if let client = socket.client { table.release(client) }
            if let forwarded = socket.forwarded { table.release(forwarded) }
            table.sockets[id]?.client = nil
            table.sockets[id]?.forwarded = nil
        }
    }

    /// True once no connection is open, false when `timeout` passes first. Woken by the last
    /// connection's `remove`, not by polling.
    func waitForNoConnections(within timeout: Duration) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await self.untilIdle(); return !Task.isCancelled
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    private func untilIdle() async {
        let id = table.withLock { table -> UInt64 in
            table.nextWaiter += 1
            return table.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = table.withLock { table -> Bool in
                    if table.cancelledWaiters.remove(id) != nil || table.sockets.isEmpty { return true }
                    table.idleWaiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = table.withLock { table -> CheckedContinuation<Void, Never>? in
                guard let waiter = table.idleWaiters.removeValue(forKey: id) else {
                    table.cancelledWaiters.insert(id)
                    return nil
                }
                return waiter
            }
            waiter?.resume()
        }
    }

    /// Shuts down every open socket in both directions so blocked peers and tasks notice.
    /// Runs under the table lock, so no descriptor can be closed and reused meanwhile.
    func shutdownAllSockets() {
        table.withLock { table in
            for socket in table.sockets.values { _ = Glibc.shutdown(socket.fd, Int32(SHUT_RDWR)) }
        }
    }

    /// Best-effort 503 on the epoll thread, without blocking: one non-blocking send, then close.
    private func reject(fd: Int32, remoteAddress: String?, refusal: Refusal) {
        var ids = RequestIDGenerator()
        let requestId = ids.next()
        let info = RequestInfo(
            requestId: requestId, logger: logger.with("request_id", .string(requestId)),
            remoteAddress: remoteAddress, maxBodyBytes: configuration.maxBodyBytes
        )
        let response = responder.protocolErrorResponse(
            status: .serviceUnavailable,
            message: refusal.message,
            info: info
        )
        var (bytes, sendsBody) = HTTPResponseSerializer.serialize(
            response, requestId: requestId, keepAlive: false, minorVersion: 1, isHeadRequest: false, date: dates.current()
        )
        if sendsBody { bytes += response.body }
        _ = bytes.withUnsafeBytes { raw in
            send(fd, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
        }
        _ = Glibc.shutdown(fd, Int32(SHUT_WR))
        close(fd)
        switch refusal {
        case .connectionLimit:
            info.logger.warning(
                "http_connection_rejected",
                [
                    ("reason", "connection limit"), ("limit", .int(configuration.maxConnections))
                ])
        case .clientLimit:
            info.logger.warning(
                "http_connection_rejected",
                [
                    ("reason", "client connection limit"), ("limit", .int(configuration.maxConnectionsPerClient)),
                    ("remote_address", .string(remoteAddress ?? ""))
                ])
        }
    }
}
