internal import Glibc
import Logging
import Synchronization

/// An HTTP/1.1 server on non-blocking sockets: a loop that accepts, and one task per
/// connection, run by the process's event loops (`EventLoopGroup`: epoll threads that are their
/// connections' executors).
///
/// It knows nothing of the application, which plugs in as an `HTTPResponder`. Run it as a
/// `Service` (`run()` until cancelled), or bind with `start()` and stop with `shutdown()`.
public final class HTTPServer: Sendable {
    private enum Lifecycle {
        case idle
        case running(ServerCore)
        case stopping(ServerCore)
        case stopped
    }

    private struct State {
        var lifecycle = Lifecycle.idle
        var stopWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let configuration: HTTPServerConfiguration
    private let responder: any HTTPResponder
    private let logger: Logger
    private let state = Mutex(State())

    /// A server for `configuration` answering with `responder`; nothing happens until `start()`.
    public init(configuration: HTTPServerConfiguration, responder: any HTTPResponder, logger: Logger) {
        self.configuration = configuration
        self.responder = responder
        self.logger = logger
    }

    /// Binds and listens, starts the event loop and returns once connections are accepted.
    /// - Throws: `HTTPServerError` when the address cannot be bound (message with `strerror`
    ///   text, e.g. "cannot bind 0.0.0.0:8080: Address already in use") or the server was
    ///   already started.
    public func start() throws {
        // A peer that closes early must not kill the process; sends also use MSG_NOSIGNAL.
        signal(SIGPIPE, SIG_IGN)
        try state.withLock { (state: inout State) throws(HTTPServerError) in
            guard case .idle = state.lifecycle else { throw HTTPServerError("the server was already started") }
            let listenerLoop = try EventLoop(name: "http-accept")
            let group = try EventLoopGroup.shared()
            let (listener, port) = try SocketAddress.listen(
                host: configuration.host, port: configuration.port, backlog: configuration.backlog
            )
            let core = ServerCore(
                configuration: configuration, responder: responder, logger: logger, listenerLoop: listenerLoop, group: group, port: port)
            let hooks = ServerHooks(hangUp: { id in core.peerHungUp(id: id) }, gone: { id in core.remove(id: id) })
            for loop in group.loops { loop.attach(server: core.tag, hooks: hooks) }
            do throws(HTTPServerError) {
                try listenerLoop.start(
                    listener: listener,
                    accept: { fd, remoteAddress in
                        core.accepted(fd: fd, remoteAddress: remoteAddress)
                    })
            } catch {
                close(listener)
                for loop in group.loops { loop.detach(server: core.tag) }
                throw error
            }
            state.lifecycle = .running(core)
        }
        logger.info("http_server_started", [("host", .string(configuration.host)), ("port", .int(port))])
    }

    /// Whether `start()` has run (the server may since have stopped).
    var isStarted: Bool {
        state.withLock { state in
            if case .idle = state.lifecycle { return false }
            return true
        }
    }

    /// The bound port (the real one when configured with port 0); 0 before `start()`.
    public var port: Int {
        state.withLock { state in
            switch state.lifecycle {
            case .running(let core), .stopping(let core): core.port
            case .idle, .stopped: 0
            }
        }
    }

    /// The number of open client connections.
    public var openConnections: Int {
        state.withLock { state in
            switch state.lifecycle {
            case .running(let core), .stopping(let core): core.connectionCount
            case .idle, .stopped: 0
            }
        }
    }

    /// Graceful shutdown: closes the listener (connections the kernel still queues are reset, so a
    /// client retries elsewhere), closes idle keep-alive connections, lets requests in
    /// flight finish for up to `shutdownGracePeriod`, then closes everything. Returns when the
    /// server has stopped; calling it again (or concurrently) just waits for that.
    public func shutdown() async {
        let core = state.withLock { state -> ServerCore? in
            switch state.lifecycle {
            case .running(let core):
                state.lifecycle = .stopping(core)
                return core
            case .idle:
                state.lifecycle = .stopped
                return nil
            case .stopping, .stopped:
                return nil
            }
        }
        guard let core else {
            await waitUntilStopped()
            return
        }
        logger.info("http_server_stopping", [("open_connections", .int(core.connectionCount))])
        // The listener closes first: a connection the loop accepted before is served, one still in
        // the kernel's queue is reset by the close, and none is accepted only to be turned away
        // (a 503 a balancer or Stripe would count as this instance's failure).
        core.draining.store(true, ordering: .relaxed)
        await core.listenerLoop.closeListener()
        for loop in core.group.loops { loop.beginDraining(server: core.tag) }

        if !(await core.waitForNoConnections(within: configuration.shutdownGracePeriod)) {
            logger.warning("http_server_forcing_close", [("open_connections", .int(core.connectionCount))])
            for loop in core.group.loops { loop.forceShutdown(server: core.tag) }
            core.shutdownAllSockets()
            // Tasks still inside a responder notice when they next touch the socket.
            _ = await core.waitForNoConnections(within: .seconds(1))
        }
        await core.listenerLoop.stop()
        for loop in core.group.loops { loop.detach(server: core.tag) }

        // Said before the waiters resume: a service group stops the next service as soon as
        // `run()` returns, and its lines must come after this one.
        logger.info("http_server_stopped")
        let waiters = state.withLock { state in
            state.lifecycle = .stopped
            defer { state.stopWaiters = [] }
            return state.stopWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the server has fully stopped (at once when it never started).
    public func waitUntilStopped() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state -> Bool in
                switch state.lifecycle {
                case .idle, .stopped:
                    return true
                case .running, .stopping:
                    state.stopWaiters.append(continuation)
                    return false
                }
            }
            if done { continuation.resume() }
        }
    }
}
