import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A blocking stream socket to a PostgreSQL server (TCP or Unix-domain) with a deadline on every
/// read and write.
///
/// Not Sendable: used by the one thread that runs its connection; it owns the descriptor and
/// closes it in `deinit`.
final class PostgresSocket {
    private(set) var fd: Int32 = -1
    /// Where `recv` writes before the bytes are appended to the caller's buffer (one copy, and
    /// no zero-filling of the caller's buffer per read).
    private let scratch = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 65_536)

    /// Connects to `endpoint`, trying each resolved address in turn within `timeout` each.
    /// - Throws: `PostgresError` (`.connection`, or `.timeout` when every attempt timed out).
    init(endpoint: PostgresConfiguration.Endpoint, timeout: Duration) throws {
        // A server that closes mid-write must give EPIPE, not kill the process (OpenSSL writes
        // with write(2), which cannot pass MSG_NOSIGNAL).
        signal(SIGPIPE, SIG_IGN)
        switch endpoint {
        case .tcp(let host, let port): fd = try Self.connectTCP(host: host, port: port, timeout: timeout)
        case .unixSocket(let directory, let port): fd = try Self.connectUnix(path: "\(directory)/.s.PGSQL.\(port)", timeout: timeout)
        }
    }

    deinit {
        close()
        scratch.deallocate()
    }

    /// Closes the descriptor. Idempotent.
    func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    private static func connectTCP(host: String, port: Int, timeout: Duration) throws -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let list else {
            throw PostgresError(.connection, "cannot resolve the PostgreSQL host '\(host)': \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var lastError = "no address"
        var allTimedOut = true
        var candidate: UnsafeMutablePointer<addrinfo>? = list
        while let info = candidate {
            candidate = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else {
                lastError = String(cString: strerror(errno))
                allTimedOut = false
                continue
            }
            if let failure = connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen, timeout: timeout) {
                lastError = failure.reason
                allTimedOut = allTimedOut && failure.timedOut
                Glibc.close(fd)
                continue
            }
            // Pipelines go out in one write, but the server's answers to small queries must not
            // wait for delayed ACKs.
            var one: Int32 = 1
            _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            return fd
        }
        throw PostgresError(allTimedOut ? .timeout : .connection, "cannot connect to PostgreSQL at \(host):\(port): \(lastError)")
    }

    private static func connectUnix(path: String, timeout: Duration) throws -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        let bytes = Array(path.utf8)
        guard bytes.count < capacity else {
            throw PostgresError(.configuration, "the Unix socket path '\(path)' is longer than \(capacity - 1) bytes")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw PostgresError(.connection, "socket() failed: \(String(cString: strerror(errno)))") }
        let failure = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, UnsafeMutablePointer(mutating: $0), socklen_t(MemoryLayout<sockaddr_un>.size), timeout: timeout)
            }
        }
        if let failure {
            Glibc.close(fd)
            throw PostgresError(failure.timedOut ? .timeout : .connection, "cannot connect to PostgreSQL at \(path): \(failure.reason)")
        }
        return fd
    }

    /// A non-blocking connect bounded by `timeout`, then back to blocking; nil on success.
    private static func connect(_ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>?, _ length: socklen_t,
                                timeout: Duration) -> (reason: String, timedOut: Bool)? {
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0, fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0 else { return (String(cString: strerror(errno)), false) }
        if Glibc.connect(fd, address, length) != 0 {
            guard errno == EINPROGRESS || errno == EAGAIN else { return (String(cString: strerror(errno)), false) }
            var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            var ready: Int32
            repeat { ready = poll(&poller, 1, Int32(clamping: timeout.milliseconds)) } while ready < 0 && errno == EINTR
            if ready == 0 { return ("connection timed out after \(timeout.milliseconds) ms", true) }
            if ready < 0 { return (String(cString: strerror(errno)), false) }
            var socketError: Int32 = 0
            var size = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &socketError, &size) == 0 else { return (String(cString: strerror(errno)), false) }
            if socketError != 0 { return (String(cString: strerror(socketError)), false) }
        }
        guard fcntl(fd, F_SETFL, flags) == 0 else { return (String(cString: strerror(errno)), false) }
        return nil
    }

    /// Sets the receive and send timeouts that bound each blocking call (and OpenSSL's).
    /// - Throws: `PostgresError` (`.connection`) when the kernel refuses.
    func setTimeout(_ timeout: Duration) throws {
        let milliseconds = max(1, timeout.milliseconds)
        var value = timeval(tv_sec: milliseconds / 1000, tv_usec: (milliseconds % 1000) * 1000)
        let size = socklen_t(MemoryLayout<timeval>.size)
        guard setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &value, size) == 0,
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &value, size) == 0
        else {
            throw PostgresError(.connection, "cannot set socket timeouts: \(String(cString: strerror(errno)))")
        }
    }

    /// Reads what is available (at most `count` bytes), appending to `buffer`.
    /// - Throws: `PostgresError` (`.timeout`, or `.connection` on error or end of stream).
    func read(into buffer: inout [UInt8], count: Int) throws {
        let limit = max(1, min(count, scratch.count))
        while true {
            let read = recv(fd, scratch.baseAddress, limit, 0)
            if read > 0 {
                buffer.append(contentsOf: UnsafeBufferPointer(rebasing: scratch[0..<read]))
                return
            }
            let code = errno
            if read < 0, code == EINTR { continue }
            if read == 0 { throw PostgresError(.connection, "the server closed the connection") }
            if code == EAGAIN || code == EWOULDBLOCK { throw PostgresError(.timeout, "timed out waiting for the server") }
            throw PostgresError(.connection, "reading from the server failed: \(String(cString: strerror(code)))")
        }
    }

    /// Writes all of `bytes`.
    /// - Throws: `PostgresError` (`.timeout`, `.connection`).
    func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if written > 0 {
                offset += written
                continue
            }
            let code = errno
            if written < 0, code == EINTR { continue }
            if code == EAGAIN || code == EWOULDBLOCK { throw PostgresError(.timeout, "timed out writing to the server") }
            throw PostgresError(.connection, "writing to the server failed: \(String(cString: strerror(code)))")
        }
    }

    /// Whether bytes (or an end of stream) are waiting to be read right now; never blocks. An idle
    /// session receives nothing unless the server is closing it (terminated backend, restart).
    func hasPendingInput() -> Bool {
        guard fd >= 0 else { return true }
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&poller, 1, 0) != 0
    }
}

extension Duration {
    /// The duration in whole milliseconds (rounded down, at least 0).
    var milliseconds: Int {
        let parts = components
        return max(0, Int(clamping: parts.seconds) &* 1000 &+ Int(parts.attoseconds / 1_000_000_000_000_000))
    }
}
