import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A blocking TCP socket to an SMTP server with a deadline on every read and write.
///
/// Not Sendable: used by the one thread that runs an SMTP session; it owns the descriptor and
/// closes it in `deinit`.
final class SMTPSocket {
    private(set) var fd: Int32

    /// Connects to `host:port`, trying each resolved address in turn within `timeout` each.
    /// - Throws: `MailError` (transient) when resolution or every connection attempt fails.
    init(host: String, port: Int, timeout: Duration) throws {
        // A peer that closes mid-write must give EPIPE, not kill the process (OpenSSL writes
        // with write(2), which cannot pass MSG_NOSIGNAL). Servers ignore SIGPIPE anyway.
        signal(SIGPIPE, SIG_IGN)
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let list else {
            let reason = String(cString: gai_strerror(status))
            throw MailError.transient("cannot resolve the SMTP host '\(host)': \(reason)")
        }
        defer { freeaddrinfo(list) }
        var lastError = "no address"
        var candidate: UnsafeMutablePointer<addrinfo>? = list
        while let info = candidate {
            candidate = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else {
                lastError = String(cString: strerror(errno))
                continue
            }
            if let failure = Self.connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen, timeout: timeout) {
                lastError = failure
                Glibc.close(fd)
                continue
            }
            self.fd = fd
            return
        }
        throw MailError.transient("cannot connect to the SMTP server \(host):\(port): \(lastError)")
    }

    deinit { close() }

    /// Closes the descriptor. Idempotent.
    func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    /// A non-blocking connect bounded by `timeout`, then back to blocking; nil on success.
    private static func connect(_ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>?, _ length: socklen_t, timeout: Duration) -> String? {
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0, fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0 else { return String(cString: strerror(errno)) }
        if Glibc.connect(fd, address, length) != 0 {
            guard errno == EINPROGRESS else { return String(cString: strerror(errno)) }
            var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            let ready = poll(&poller, 1, Int32(clamping: timeout.milliseconds))
            if ready == 0 { return "connection timed out after \(timeout.milliseconds) ms" }
            if ready < 0 { return String(cString: strerror(errno)) }
            var socketError: Int32 = 0
            var size = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &socketError, &size) == 0 else { return String(cString: strerror(errno)) }
            if socketError != 0 { return String(cString: strerror(socketError)) }
        }
        guard fcntl(fd, F_SETFL, flags) == 0 else { return String(cString: strerror(errno)) }
        return nil
    }

    /// Sets the receive and send timeouts that bound each blocking call (and OpenSSL's).
    /// - Throws: `MailError` (transient) when the kernel refuses.
    func setTimeout(_ timeout: Duration) throws {
        let milliseconds = max(1, timeout.milliseconds)
        var value = timeval(tv_sec: milliseconds / 1000, tv_usec: (milliseconds % 1000) * 1000)
        let size = socklen_t(MemoryLayout<timeval>.size)
        guard setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &value, size) == 0,
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &value, size) == 0
        else {
            throw MailError.transient("cannot set socket timeouts: \(String(cString: strerror(errno)))")
        }
    }

    /// Reads what is available (at most `count` bytes), appending to `buffer`.
    /// - Throws: `MailError` (transient) on timeout, error or end of stream.
    func read(into buffer: inout [UInt8], count: Int) throws {
        var chunk = [UInt8](repeating: 0, count: count)
        while true {
            let read = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if read > 0 {
                buffer.append(contentsOf: chunk[0..<read])
                return
            }
            if read == 0 { throw MailError.transient("the SMTP server closed the connection") }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { throw MailError.transient("timed out waiting for the SMTP server") }
            throw MailError.transient("reading from the SMTP server failed: \(String(cString: strerror(errno)))")
        }
    }

    /// Writes all of `bytes`.
    /// - Throws: `MailError` (transient) on timeout or error.
    func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { send(fd, $0.baseAddress.map { $0 + offset }, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if written > 0 {
                offset += written
                continue
            }
            if written < 0, errno == EINTR { continue }
            if written < 0, errno == EAGAIN || errno == EWOULDBLOCK { throw MailError.transient("timed out writing to the SMTP server") }
            throw MailError.transient("writing to the SMTP server failed: \(String(cString: strerror(errno)))")
        }
    }
}

extension Duration {
    /// The duration in whole milliseconds (rounded down, at least 0).
    var milliseconds: Int {
        let parts = components
        return max(0, Int(clamping: parts.seconds) &* 1000 &+ Int(parts.attoseconds / 1_000_000_000_000_000))
    }
}
