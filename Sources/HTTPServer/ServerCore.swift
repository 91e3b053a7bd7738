internal import Glibc
import Logging
import Synchronization

/// State shared by the `HTTPServer` object, the epoll thread and every connection task:
/// configuration, the responder, the event loop and the table of open connections.
final class ServerCore: Sendable {
    let configuration: HTTPServerConfiguration
    let responder: any HTTPResponder
    let logger: Logger
    let loop: EventLoop
    let port: Int
    let limits: HTTPRequestParser.Limits
    let headerTimeout: UInt64
    let bodyTimeout: UInt64
    let idleTimeout: UInt64
    let dates = HTTPDateCache()
    /// Set when graceful shutdown begins: responses then carry `Connection: close`.
    let draining = Atomic<Bool>(false)

    private struct ConnectionTable {
        /// Open connections by id, with their descriptors (for a forced shutdown).
        var sockets: [UInt64: Int32] = [:]
        var nextID: UInt64 = 0
        var accepting = true
    }

    private let table = Mutex(ConnectionTable())

    init(configuration: HTTPServerConfiguration, responder: any HTTPResponder, logger: Logger, loop: EventLoop, port: Int) {
        self.configuration = configuration
        self.responder = responder
        self.logger = logger
        self.loop = loop
        self.port = port
        limits = HTTPRequestParser.Limits(configuration)
        headerTimeout = MonotonicClock.nanoseconds(configuration.headerReadTimeout)
        bodyTimeout = MonotonicClock.nanoseconds(configuration.bodyReadTimeout)
        idleTimeout = MonotonicClock.nanoseconds(configuration.keepAliveIdleTimeout)
    }

    var connectionCount: Int { table.withLock { $0.sockets.count } }

    /// Called on the epoll thread for each accepted socket: starts its task, or answers 503
    /// when the connection cap is reached.
    func accepted(fd: Int32, remoteAddress: String?) {
        let (id, accepting) = table.withLock { table -> (UInt64?, Bool) in
            guard table.accepting, table.sockets.count < configuration.maxConnections else { return (nil, table.accepting) }
            table.nextID += 1
            table.sockets[table.nextID] = fd
            return (table.nextID, true)
        }
        guard let id else {
            reject(fd: fd, remoteAddress: remoteAddress, shuttingDown: !accepting)
            return
        }
        var one: Int32 = 1
        // Responses are written whole; Nagle would only delay a 100 Continue's follow-up.
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        Task {
            let connection = HTTPConnection(core: self, fd: fd, id: id, remoteAddress: remoteAddress)
            await connection.run()
        }
    }

    /// Forgets a connection; called by its task just before it closes the descriptor.
    func remove(id: UInt64) {
        table.withLock { _ = $0.sockets.removeValue(forKey: id) }
    }

    /// Stops admitting connections (they are closed at once).
    func stopAccepting() {
        table.withLock { $0.accepting = false }
    }

    /// Shuts down every open socket in both directions so blocked peers and tasks notice.
    /// Runs under the table lock, so no descriptor can be closed and reused meanwhile.
    func shutdownAllSockets() {
        table.withLock { table in
            for fd in table.sockets.values { _ = Glibc.shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    /// Best-effort 503 on the epoll thread, without blocking: one non-blocking send, then close.
    private func reject(fd: Int32, remoteAddress: String?, shuttingDown: Bool) {
        var ids = RequestIDGenerator()
        let requestId = ids.next()
        let context = RequestContext(
            requestId: requestId, logger: logger.with([("request_id", .string(requestId))]),
            remoteAddress: remoteAddress, maxBodyBytes: configuration.maxBodyBytes
        )
        let response = responder.protocolErrorResponse(
            status: .serviceUnavailable,
            message: shuttingDown ? "The server is shutting down." : "Too many open connections; try again later.",
            context: context
        )
        var (bytes, separateBody) = HTTPResponseSerializer.serialize(
            response, requestId: requestId, keepAlive: false, minorVersion: 1, isHeadRequest: false, date: dates.current()
        )
        if separateBody { bytes += response.body }
        _ = bytes.withUnsafeBytes { raw in
            send(fd, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
        }
        _ = Glibc.shutdown(fd, Int32(SHUT_WR))
        close(fd)
        context.logger.warning("http_connection_rejected", [
            ("reason", shuttingDown ? "shutting down" : "connection limit"), ("limit", .int(configuration.maxConnections)),
        ])
    }
}
