import Crypto
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One HTTP/1.1 connection to a server: a blocking socket, TLS over it for https, and the bytes
/// read but not consumed yet. Every blocking call is bounded by the exchange's deadline (the
/// socket's receive and send timeouts are set to what is left before each call).
///
/// Not Sendable: one thread uses it at a time (`SocketHTTPClient` hands it over through its
/// pool's lock). It owns the descriptor and the TLS session and frees both in `deinit`.
final class ClientConnection {
    private var fd: Int32
    private var tls: TLSClientConnection?
    var buffer: [UInt8] = []

    /// Resolves `host`, connects to the first address that answers and, for https, performs the
    /// TLS handshake, all before `deadline`.
    /// - Throws: `UpstreamError` (`.unreachable`, `.timedOut`).
    init(host: String, port: Int, useTLS: Bool, tlsConfiguration: TLSClientConfiguration, deadline: ContinuousClock.Instant, service: String) throws {
        signal(SIGPIPE, SIG_IGN)
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw UpstreamError(service: service, kind: .unreachable, message: "cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var problem = "no address for \(host)"
        var connected: Int32 = -1
        for info in sequence(first: first, next: { $0.pointee.ai_next }) where connected < 0 {
            let candidate = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard candidate >= 0 else { continue }
            switch Self.connect(candidate, to: info.pointee, deadline: deadline) {
            case nil: connected = candidate
            case let failure?:
                problem = failure
                Glibc.close(candidate)
            }
        }
        guard connected >= 0 else {
            let timedOut = problem.hasPrefix("timed out")
            throw UpstreamError(service: service, kind: timedOut ? .timedOut : .unreachable, message: "cannot connect to \(host):\(port): \(problem)")
        }
        fd = connected
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        if useTLS {
            try bound(deadline, service: service)
            do {
                tls = try TLSClientConnection(fd: fd, host: host, configuration: tlsConfiguration)
            } catch let error as TLSError {
                throw UpstreamError(service: service, kind: error.kind == .timeout ? .timedOut : .unreachable, message: "TLS with \(host): \(error)")
            }
        }
    }

    deinit {
        tls?.shutdown()
        tls = nil
        if fd >= 0 { Glibc.close(fd) }
    }

    /// A non-blocking connect waited for with poll until `deadline`, then back to blocking;
    /// nil when connected, else why not.
    private static func connect(_ fd: Int32, to info: addrinfo, deadline: ContinuousClock.Instant) -> String? {
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0, fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0 else { return String(cString: strerror(errno)) }
        if Glibc.connect(fd, info.ai_addr, info.ai_addrlen) != 0 {
            guard errno == EINPROGRESS else { return String(cString: strerror(errno)) }
            var waiting = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            let ready = poll(&waiting, 1, Int32(clamping: remainingMilliseconds(deadline)))
            guard ready > 0 else { return ready == 0 ? "timed out" : String(cString: strerror(errno)) }
            var failure: Int32 = 0
            var size = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &failure, &size)
            if failure != 0 { return String(cString: strerror(failure)) }
        }
        return fcntl(fd, F_SETFL, flags) == 0 ? nil : String(cString: strerror(errno))
    }

    static func remainingMilliseconds(_ deadline: ContinuousClock.Instant) -> Int {
        let left = ContinuousClock.now.duration(to: deadline).components
        return max(0, Int(left.seconds) * 1000 + Int(left.attoseconds / 1_000_000_000_000_000))
    }

    /// Sets the socket's timeouts to what is left before `deadline`.
    /// - Throws: `UpstreamError.timedOut` when nothing is left.
    private func bound(_ deadline: ContinuousClock.Instant, service: String) throws {
        let left = Self.remainingMilliseconds(deadline)
        guard left > 0 else { throw UpstreamError(service: service, kind: .timedOut, message: "the exchange timed out") }
        var value = timeval(tv_sec: left / 1000, tv_usec: (left % 1000) * 1000)
        let size = socklen_t(MemoryLayout<timeval>.size)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &value, size)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &value, size)
    }

    /// Writes all of `bytes` before `deadline`.
    /// - Throws: `UpstreamError`.
    func write(_ bytes: [UInt8], deadline: ContinuousClock.Instant, service: String) throws {
        try bound(deadline, service: service)
        if let tls {
            do { try tls.write(bytes) } catch let error as TLSError { throw Self.failure(error, service: service) }
            return
        }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { send(fd, $0.baseAddress.map { $0 + offset }, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if written > 0 {
                offset += written
            } else if errno != EINTR {
                throw Self.socketFailure(errno, doing: "write", service: service)
            }
        }
    }

    /// Reads what arrives next into `buffer`; false at the end of the stream.
    /// - Throws: `UpstreamError`.
    @discardableResult
    func fill(deadline: ContinuousClock.Instant, service: String) throws -> Bool {
        try bound(deadline, service: service)
        if let tls {
            do {
                return try tls.read(into: &buffer, count: 16_384) > 0
            } catch let error as TLSError {
                if error.kind == .io, error.description.contains("closed") { return false }
                throw Self.failure(error, service: service)
            }
        }
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let read = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if read > 0 {
                buffer.append(contentsOf: chunk[0..<read])
                return true
            }
            if read == 0 { return false }
            if errno != EINTR { throw Self.socketFailure(errno, doing: "read", service: service) }
        }
    }

    private static func socketFailure(_ code: Int32, doing action: String, service: String) -> UpstreamError {
        if code == EAGAIN || code == EWOULDBLOCK { return UpstreamError(service: service, kind: .timedOut, message: "the exchange timed out") }
        return UpstreamError(service: service, kind: .unreachable, message: "\(action) failed: \(String(cString: strerror(code)))")
    }

    private static func failure(_ error: TLSError, service: String) -> UpstreamError {
        UpstreamError(service: service, kind: error.kind == .timeout ? .timedOut : .unreachable, message: "TLS: \(error)")
    }
}
