internal import Glibc
import Logging

/// One client connection, driven by its own task: read → parse → respond → write, in a loop.
///
/// All socket I/O is attempted directly with non-blocking calls from the task; the task parks
/// on the event loop only when a call returns `EAGAIN`. Its async methods (and `EventLoop.wait`)
/// are `nonisolated(nonsending)`: they run on the caller's executor, the loop, so returning from
/// one needs no switch back to it (each switch asks the task for its executor preference: the
/// page's count fell from 47,128 to 44,646 instructions). It is created inside its task and
/// never shared, so it needs no synchronisation.
final class HTTPConnection {
    private let core: ServerCore
    /// The loop this connection's task runs on and parks on.
    private let loop: EventLoop
    private let fd: Int32
    private let id: UInt64
    private let remoteAddress: String?
    /// Whether the peer is a trusted proxy: each request then counts toward the cap of the client
    /// it forwards while it is in flight.
    private let viaProxy: Bool
    private var buffer = ByteBuffer()
    private var parser: HTTPRequestParser
    private var ids = RequestIDGenerator()
    private var closed = false
    /// The last read returned less than it asked for: the socket had nothing more then, so the
    /// next read waits for the loop's event first instead of spending a `read` on `EAGAIN`
    /// (nginx does the same with `EPOLLRDHUP`). Data, a FIN or a reset that comes after that read
    /// is an edge event, which the loop keeps for the wait when no read waits yet.
    private var drained = false

    init(core: ServerCore, loop: EventLoop, fd: Int32, id: UInt64, remoteAddress: String?, viaProxy: Bool = false) {
        self.core = core
        self.loop = loop
        self.fd = fd
        self.id = id
        self.remoteAddress = remoteAddress
        self.viaProxy = viaProxy
        parser = HTTPRequestParser(limits: core.limits)
    }

    deinit { close() }

    /// Serves requests until the peer closes, an error occurs or the server shuts down.
    nonisolated(nonsending) func run() async {
        defer { close() }
        guard loop.register(fd: fd, id: id) else {
            core.logger.warning("http_connection_dropped", [("reason", "cannot register the socket with epoll"), ("errno", .int(Int(errno)))])
            return
        }
        var firstRequest = true
        let acceptedAt = MonotonicClock.now()
        while true {
            guard let (head, requestDeadline) = await readHead(firstRequest: firstRequest, acceptedAt: acceptedAt) else { return }
            firstRequest = false
            let forwarded = admitForwardedClient(of: head)
            let outcome = await serve(head, requestDeadline: requestDeadline, forwarded: forwarded)
            // Counted from the head until the response is written (or the request given up).
            if viaProxy { core.releaseForwarded(id: id) }
            switch outcome {
            case .done: return
            case .closeAfterResponse:
                await lingeringClose()
                return
            case .keepAlive:
                buffer.shrinkIfIdle()
            }
        }
    }

    private enum Outcome { case keepAlive, closeAfterResponse, done }

    /// Reads the body of `head`, has the responder answer it (or, when the client it comes from
    /// through a trusted proxy is at its cap, answers 503) and writes the answer.
    private nonisolated(nonsending) func serve(_ head: HTTPRequestHead, requestDeadline: UInt64, forwarded: ForwardedAdmission?) async -> Outcome {
        let plan = core.responder.plan(method: head.method, path: head.path)
        let limit = plan.maxBodyBytes ?? core.configuration.maxBodyBytes
        guard let body = await readBody(head: head, limit: limit, requestDeadline: requestDeadline) else { return .done }

        let requestId = requestId(for: head)
        let info = RequestInfo(
            requestId: requestId, logger: core.logger.with("request_id", .string(requestId)),
            remoteAddress: remoteAddress, maxBodyBytes: limit, forwardedClient: forwarded?.client
        )
        let request = HTTPRequest(
            method: head.method, target: head.target, minorVersion: head.minorVersion,
            headers: head.headers, body: body
        )
        let response: HTTPResponse
        if let forwarded, !forwarded.admitted {
            let refusedClient = forwarded.client
            // The proxy's connection stays open: its other clients' requests follow on it.
            info.logger.warning(
                "http_request_rejected",
                [
                    ("status", .int(503)), ("reason", "client connection limit"),
                    ("limit", .int(core.configuration.maxConnectionsPerClient)),
                    ("remote_address", .string(remoteAddress ?? "")), ("client_address", .string(refusedClient))
                ])
            response = core.responder.protocolErrorResponse(
                status: .serviceUnavailable, message: ServerCore.Refusal.clientLimit.message, info: info)
        } else {
            // The task does not read while the responder runs: the event loop tells the core if
            // the peer hangs up meanwhile (`EventLoop.register`), so its slot of the client's cap
            // is free at once.
            response = await core.responder.respond(to: request, plan: plan, info: info)
        }
        let keepAlive =
            head.keepAlive && !core.draining.load(ordering: .relaxed)
            && !HTTPResponseSerializer.requestsClose(response)
        guard await send(response, requestId: requestId, head: head, keepAlive: keepAlive) else { return .done }
        return keepAlive ? .keepAlive : .closeAfterResponse
    }

    /// The client a trusted proxy's request comes from, and whether it was admitted.
    private struct ForwardedAdmission {
        let client: String
        /// False when that client is at its cap: the request is refused.
        let admitted: Bool
    }

    /// For a trusted proxy's request: counts the client it forwards toward that client's cap (to
    /// release once answered); nil for a request not from a trusted proxy.
    private func admitForwardedClient(of head: HTTPRequestHead) -> ForwardedAdmission? {
        guard viaProxy, let policy = core.configuration.clientAddressPolicy else { return nil }
        let client = policy.forwardedClient(peer: remoteAddress ?? "", headers: head.headers)
        return ForwardedAdmission(client: client, admitted: core.admitForwarded(client: client, id: id))
    }

    // MARK: Reading

    /// Reads and parses a head; nil when the connection is done (closed, rejected, timed out).
    /// Also returns the time by which the whole request must have arrived: the request timeout
    /// after its first byte.
    private nonisolated(nonsending) func readHead(firstRequest: Bool, acceptedAt: UInt64) async -> (HTTPRequestHead, requestDeadline: UInt64)? {
        // The header timeout runs from accept for a new connection, else from the first byte.
        var headDeadline: UInt64? = firstRequest ? acceptedAt &+ core.headerTimeout : nil
        var requestDeadline: UInt64?
        let idleDeadline = MonotonicClock.now() &+ core.idleTimeout
        while true {
            if requestDeadline == nil && !buffer.isEmpty {
                let now = MonotonicClock.now()
                requestDeadline = now &+ core.requestTimeout
                if headDeadline == nil { headDeadline = now &+ core.headerTimeout }
            }
            do {
                if let head = try parser.parseHead(&buffer) { return (head, requestDeadline ?? MonotonicClock.now() &+ core.requestTimeout) }
            } catch {
                await reject(error, head: nil)
                return nil
            }
            let deadline = headDeadline.map { min($0, requestDeadline ?? .max) } ?? idleDeadline
            // Idle (ended at once when the server drains) only between requests: a connection
            // accepted just before the listener closed is owed its first answer.
            switch await receive(deadline: deadline, idle: buffer.isEmpty && !firstRequest) {
            case .received:
                continue
            case .timedOut where headDeadline != nil:
                await reject(HTTPParseError(.requestTimeout, "Request head not received in time."), head: nil)
                return nil
            case .timedOut, .closed, .shutdown:
                return nil
            }
        }
    }

    /// Reads the body of `head`; nil when the connection is done. Each read must come within the
    /// body read timeout, and the last by `requestDeadline`.
    private nonisolated(nonsending) func readBody(head: HTTPRequestHead, limit: Int, requestDeadline: UInt64) async -> [UInt8]? {
        do {
            try parser.beginBody(for: head, limit: limit)
        } catch {
            await reject(error, head: head)
            return nil
        }
        if head.expectsContinue && head.hasBody && buffer.isEmpty {
            guard await write(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8), nil) else { return nil }
        }
        while true {
            do {
                if let body = try parser.parseBody(&buffer) { return body }
            } catch {
                await reject(error, head: head)
                return nil
            }
            switch await receive(deadline: min(MonotonicClock.now() &+ core.bodyTimeout, requestDeadline), idle: false) {
            case .received:
                continue
            case .timedOut:
                await reject(HTTPParseError(.requestTimeout, "Request body not received in time."), head: head)
                return nil
            case .closed, .shutdown:
                return nil
            }
        }
    }

    private enum ReceiveResult { case received, closed, timedOut, shutdown }

    /// Reads whatever is available, parking on the event loop only when nothing is.
    private nonisolated(nonsending) func receive(deadline: UInt64, idle: Bool) async -> ReceiveResult {
        while true {
            if drained {
                drained = false
            } else {
                var asked = 0
                let result = buffer.writeWithUnsafeMutableBytes(minimumWritable: 1024) { space in
                    asked = space.count
                    let count = Glibc.read(fd, space.baseAddress, space.count)
                    return count >= 0 ? count : -Int(errno)
                }
                if result > 0 {
                    drained = result < asked
                    return .received
                }
                if result == 0 { return .closed }
                let number = Int32(-result)
                if number == EINTR { continue }
                guard number == EAGAIN || number == EWOULDBLOCK else { return .closed }
            }
            switch await loop.wait(fd: fd, id: id, writable: false, deadline: deadline, idle: idle) {
            case .ready: continue
            case .timedOut: return .timedOut
            case .shutdown: return .shutdown
            case .peerGone:
                // The event loop closed the socket and removed the connection: nothing left to do.
                closed = true
                return .closed
            }
        }
    }

    // MARK: Writing

    private nonisolated(nonsending) func send(_ response: HTTPResponse, requestId: String, head: HTTPRequestHead?, keepAlive: Bool) async -> Bool {
        let (bytes, sendsBody) = HTTPResponseSerializer.serialize(
            response, requestId: requestId, keepAlive: keepAlive, minorVersion: head?.minorVersion ?? 1,
            isHeadRequest: head?.method == .head, date: core.dates.current()
        )
        return await write(bytes, sendsBody ? response.body : nil)
    }

    /// Writes `first` then `second` fully with `sendmsg` (one call for both when the socket
    /// takes them), parking on `EPOLLOUT` only when the socket buffer is full. False when the
    /// peer is gone or stalls longer than the body timeout.
    private nonisolated(nonsending) func write(_ first: [UInt8], _ second: [UInt8]?) async -> Bool {
        let second = second ?? []
        let total = first.count + second.count
        var written = 0
        while written < total {
            let result = first.withUnsafeBytes { a in
                second.withUnsafeBytes { b in
                    Self.sendRemaining(of: a, then: b, skipping: written, to: fd)
                }
            }
            if result > 0 {
                written += result
                continue
            }
            let number = Int32(-result)
            if result < 0 && number == EINTR { continue }
            guard result < 0, number == EAGAIN || number == EWOULDBLOCK else { return false }
            let deadline = MonotonicClock.now() &+ core.bodyTimeout
            guard await loop.wait(fd: fd, id: id, writable: true, deadline: deadline, idle: false) == .ready else {
                return false
            }
        }
        return true
    }

    /// One `sendmsg` to `fd` of what is left of `a` then `b` after their first `skipping` bytes,
    /// its two vectors on the stack; the bytes sent, or minus `errno`.
    static func sendRemaining(of a: UnsafeRawBufferPointer, then b: UnsafeRawBufferPointer, skipping: Int, to fd: Int32) -> Int {
        withUnsafeTemporaryAllocation(of: iovec.self, capacity: 2) { vectors in
            var count = 0
            if skipping < a.count {
                vectors[0] = iovec(iov_base: UnsafeMutableRawPointer(mutating: a.baseAddress! + skipping), iov_len: a.count - skipping)
                count = 1
            }
            let intoB = max(0, skipping - a.count)
            if intoB < b.count {
                vectors[count] = iovec(iov_base: UnsafeMutableRawPointer(mutating: b.baseAddress! + intoB), iov_len: b.count - intoB)
                count += 1
            }
            var message = msghdr()
            message.msg_iov = vectors.baseAddress
            message.msg_iovlen = count
            let sent = Glibc.sendmsg(fd, &message, Int32(MSG_NOSIGNAL))
            return sent >= 0 ? sent : -Int(errno)
        }
    }

    // MARK: Errors and closing

    /// Sends the responder's protocol error response with `Connection: close`, then closes.
    private nonisolated(nonsending) func reject(_ error: HTTPParseError, head: HTTPRequestHead?) async {
        let rejectedId = head.map { self.requestId(for: $0) } ?? ids.next()
        let info = RequestInfo(
            requestId: rejectedId, logger: core.logger.with("request_id", .string(rejectedId)),
            remoteAddress: remoteAddress, maxBodyBytes: core.configuration.maxBodyBytes
        )
        info.logger.info(
            "http_request_rejected",
            [
                ("status", .int(error.status.code)), ("reason", .string(error.message)),
                ("remote_address", .string(remoteAddress ?? ""))
            ])
        let response = core.responder.protocolErrorResponse(status: error.status, message: error.message, info: info)
        if await send(response, requestId: rejectedId, head: head, keepAlive: false) {
            await lingeringClose()
        }
    }

    /// Half-closes, then reads and discards for a moment so that unread request bytes do not
    /// turn the close into a reset that would destroy the response in flight.
    private nonisolated(nonsending) func lingeringClose() async {
        _ = Glibc.shutdown(fd, Int32(SHUT_WR))
        let deadline = MonotonicClock.now() &+ 2_000_000_000
        var discarded = 0
        while discarded < 1 << 20 {
            buffer.moveReaderIndex(by: buffer.readableBytes)
            guard await receive(deadline: deadline, idle: false) == .received else { return }
            discarded += buffer.readableBytes
        }
    }

    private func requestId(for head: HTTPRequestHead) -> String {
        if let given = head.requestId, HTTPSyntax.isValidRequestId(given) { return given }
        return ids.next()
    }

    private func close() {
        guard !closed else { return }
        closed = true
        core.remove(id: id)
        loop.deregister(fd: fd, id: id)
        Glibc.close(fd)
    }
}
