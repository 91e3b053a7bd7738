#if canImport(Glibc)
    internal import Glibc
#endif

/// Connecting: a non-blocking `connect` waited for with `poll` (retried on EINTR) until the
/// attempt's time is up, then back to blocking mode.
extension BlockingSocket {
    /// Connects to `host:port` over TCP, trying each address `getaddrinfo` returns in turn, each
    /// within `timeout`. TCP_NODELAY is on (small requests must not wait for delayed ACKs).
    /// - Throws: `SocketError`: `.resolution`; `.timeout` when every attempt timed out; else
    ///   `.refused` or `.unreachable` as the last attempt failed.
    public convenience init(host: String, port: Int, timeout: Duration) throws(SocketError) {
        try self.init(host: host, port: port, limit: .eachAttempt(timeout))
    }

    /// Connects to `host:port` over TCP, trying each address `getaddrinfo` returns in turn, all
    /// before `deadline`. TCP_NODELAY is on.
    /// - Throws: `SocketError`, as `init(host:port:timeout:)`.
    public convenience init(host: String, port: Int, deadline: ContinuousClock.Instant) throws(SocketError) {
        try self.init(host: host, port: port, limit: .until(deadline))
    }

    /// Connects to the Unix-domain stream socket at `path` within `timeout`.
    /// - Throws: `SocketError` (`.invalidAddress` for a path too long for `sockaddr_un`,
    ///   `.timeout`, `.refused` when nothing listens, `.unreachable` when there is no socket).
    public convenience init(unixPath path: String, timeout: Duration) throws(SocketError) {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        let bytes = Array(path.utf8)
        guard bytes.count < capacity else {
            throw SocketError(.invalidAddress, "the Unix socket path '\(path)' is longer than \(capacity - 1) bytes")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SocketError(.unreachable, "cannot create a socket for \(path): \(Self.describe(errno))") }
        let failure = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Self.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size), limit: .eachAttempt(timeout))
            }
        }
        if let failure {
            Glibc.close(fd)
            throw SocketError(failure.kind, "cannot connect to \(path): \(failure.reason)")
        }
        self.init(connected: fd, peer: path)
    }

    /// How long connection attempts may take.
    private enum ConnectLimit {
        /// Each attempt gets this long.
        case eachAttempt(Duration)
        /// All attempts end by then.
        case until(ContinuousClock.Instant)

        /// When an attempt starting now must end.
        func attemptDeadline() -> ContinuousClock.Instant {
            switch self {
            case .eachAttempt(let timeout): ContinuousClock.now + timeout
            case .until(let deadline): deadline
            }
        }
    }

    /// Why one attempt failed.
    private struct AttemptFailure {
        let kind: SocketError.Kind
        let reason: String

        /// `.refused` for ECONNREFUSED, `.unreachable` for any other errno.
        init(errno code: Int32) {
            kind = code == ECONNREFUSED ? .refused : .unreachable
            reason = BlockingSocket.describe(code)
        }

        init(timedOutAfter milliseconds: Int) {
            kind = .timeout
            reason = "connection timed out after \(milliseconds) ms"
        }
    }

    private convenience init(host: String, port: Int, limit: ConnectLimit) throws(SocketError) {
        let peer = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let list else {
            throw SocketError(.resolution, "cannot resolve '\(host)': \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var last = AttemptFailure(errno: EADDRNOTAVAIL)  // replaced by the first attempt's failure
        var allTimedOut = true
        var candidate: UnsafeMutablePointer<addrinfo>? = list
        while let info = candidate {
            candidate = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else {
                last = AttemptFailure(errno: errno)
                allTimedOut = false
                continue
            }
            if let failure = Self.connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen, limit: limit) {
                last = failure
                allTimedOut = allTimedOut && failure.kind == .timeout
                Glibc.close(fd)
                continue
            }
            var one: Int32 = 1
            _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            self.init(connected: fd, peer: peer)
            return
        }
        throw SocketError(allTimedOut && last.kind == .timeout ? .timeout : last.kind, "cannot connect to \(peer): \(last.reason)")
    }

    /// A non-blocking connect of `fd` to `address` bounded by `limit`, then back to blocking;
    /// nil once connected.
    private static func connect(
        _ fd: Int32, _ address: UnsafePointer<sockaddr>?, _ length: socklen_t,
        limit: ConnectLimit
    ) -> AttemptFailure? {
        let deadline = limit.attemptDeadline()
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0, fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0 else { return AttemptFailure(errno: errno) }
        if Glibc.connect(fd, address, length) != 0 {
            // EAGAIN: a Unix-domain listener's backlog is full.
            guard errno == EINPROGRESS || errno == EAGAIN else { return AttemptFailure(errno: errno) }
            let budget = ContinuousClock.now.duration(to: deadline).wholeMilliseconds
            var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            var ready: Int32
            repeat {
                let left = ContinuousClock.now.duration(to: deadline).wholeMilliseconds
                ready = poll(&poller, 1, Int32(clamping: left))
            } while ready < 0 && errno == EINTR
            if ready == 0 { return AttemptFailure(timedOutAfter: budget) }
            if ready < 0 { return AttemptFailure(errno: errno) }
            var socketError: Int32 = 0
            var size = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &socketError, &size) == 0 else { return AttemptFailure(errno: errno) }
            if socketError != 0 { return AttemptFailure(errno: socketError) }
        }
        guard fcntl(fd, F_SETFL, flags) == 0 else { return AttemptFailure(errno: errno) }
        return nil
    }
}
