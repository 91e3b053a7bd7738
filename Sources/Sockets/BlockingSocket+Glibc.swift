#if canImport(Glibc)
    internal import Glibc
#endif

/// A connected, blocking stream socket (TCP or Unix-domain) whose reads and writes are bounded
/// by the timeout `setTimeout(_:)` sets, with `fd` for a TLS session over it.
///
/// Connecting is in `BlockingSocket+Connect.swift`. Every call blocks its thread: callers run it
/// on a thread of their own (a Dispatch queue), never on Swift's cooperative pool.
///
/// Not Sendable: one thread uses it at a time; it owns the descriptor and closes it in `deinit`.
public final class BlockingSocket {
    /// The descriptor, connected and in blocking mode; -1 once closed. For
    /// `TLSClientConnection(fd:host:)`: the socket still owns it and closes it.
    public private(set) var fd: Int32
    /// "host:port" or the Unix socket path, as messages name it.
    public let peer: String
    /// The last timeout `setTimeout(_:)` set, for messages (nil: reads and writes may block forever).
    private var timeoutMilliseconds: Int?
    /// Where `recv` writes before the bytes are appended to the caller's buffer (one copy, and no
    /// zero-filling of a fresh chunk per read).
    private let scratch = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 65_536)

    /// Takes ownership of `fd`, connected and in blocking mode.
    init(connected fd: Int32, peer: String) {
        // A peer that closes mid-write must give EPIPE, not kill the process: `send` passes
        // MSG_NOSIGNAL, but OpenSSL writes over `fd` with write(2), which cannot.
        signal(SIGPIPE, SIG_IGN)
        self.fd = fd
        self.peer = peer
    }

    deinit {
        close()
        scratch.deallocate()
    }

    /// Closes the descriptor. Idempotent.
    public func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    /// Sets the receive and send timeouts (`SO_RCVTIMEO`, `SO_SNDTIMEO`, at least 1 ms) that bound
    /// each following read and write, including those of a TLS session over `fd`.
    /// - Throws: `SocketError` (`.io`) when the kernel refuses.
    public func setTimeout(_ timeout: Duration) throws(SocketError) {
        let milliseconds = max(1, timeout.wholeMilliseconds)
        var value = timeval(tv_sec: milliseconds / 1000, tv_usec: (milliseconds % 1000) * 1000)
        let size = socklen_t(MemoryLayout<timeval>.size)
        guard setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &value, size) == 0,
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &value, size) == 0
        else {
            throw SocketError(.io, "cannot set the timeouts of the socket to \(peer): \(Self.describe(errno))")
        }
        timeoutMilliseconds = milliseconds
    }

    /// Reads what is available (at least one byte, at most `count`), appending it to `buffer`.
    /// - Throws: `SocketError` (`.timeout` when nothing arrives in time, `.closed` at the end of
    ///   the stream, `.io` on a failure such as a reset).
    public func read(into buffer: inout [UInt8], count: Int) throws(SocketError) {
        let limit = max(1, min(count, scratch.count))
        while true {
            let received = recv(fd, scratch.baseAddress, limit, 0)
            if received > 0 {
                buffer.append(contentsOf: UnsafeBufferPointer(rebasing: scratch[0..<received]))
                return
            }
            if received == 0 { throw SocketError(.closed, "\(peer) closed the connection") }
            let code = errno
            if code == EINTR { continue }
            if code == EAGAIN || code == EWOULDBLOCK { throw SocketError(.timeout, "timed out\(waited) waiting for \(peer)") }
            throw SocketError(.io, "reading from \(peer) failed: \(Self.describe(code))")
        }
    }

    /// Writes all of `bytes` (MSG_NOSIGNAL: a closed peer is an error, not SIGPIPE).
    /// - Throws: `SocketError` (`.timeout` when the peer does not take them in time, `.io` on a
    ///   failure such as a broken pipe or a reset).
    public func write(_ bytes: [UInt8]) throws(SocketError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if written > 0 {
                offset += written
                continue
            }
            let code = errno
            if written < 0, code == EINTR { continue }
            if written < 0, code == EAGAIN || code == EWOULDBLOCK { throw SocketError(.timeout, "timed out\(waited) writing to \(peer)") }
            throw SocketError(.io, "writing to \(peer) failed: \(written == 0 ? "no byte was taken" : Self.describe(code))")
        }
    }

    /// Whether bytes (or the end of the stream) are waiting to be read right now; never blocks.
    /// True once closed.
    public func hasPendingInput() -> Bool {
        guard fd >= 0 else { return true }
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&poller, 1, 0) != 0
    }

    /// " after N ms" when a timeout was set, for messages.
    private var waited: String { timeoutMilliseconds.map { " after \($0) ms" } ?? "" }

    /// `strerror(code)`.
    static func describe(_ code: Int32) -> String { String(cString: strerror(code)) }
}
