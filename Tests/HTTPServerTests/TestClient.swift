import Dispatch
import Foundation
import Glibc

/// A raw-socket HTTP client for live tests. Each blocking socket call runs on a serial Dispatch
/// queue of its own, never on the Swift cooperative pool, so it cannot starve the server's own
/// tasks; nor on a shared concurrent queue, whose few workers (one per core on Linux) the
/// blocking calls of the tests running beside would hold (`offPool` says why).
///
/// `@unchecked Sendable`: each client is used by one test at a time, strictly sequentially
/// (every call is awaited before the next), so its buffer is never touched concurrently.
final class TestClient: @unchecked Sendable {
    struct Response {
        var statusLine: String
        var status: Int
        var headers: [(name: String, value: String)]
        var body: String

        func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private let fd: Int32
    private var pending: [UInt8] = []
    private var isClosed = false

    private init(fd: Int32) { self.fd = fd }

    deinit { if !isClosed { Glibc.close(fd) } }

    /// Closes the socket now (a full close: the peer gets FIN, or RST if it sends more).
    func close() {
        guard !isClosed else { return }
        isClosed = true
        Glibc.close(fd)
    }

    /// Half-closes: sends FIN after what was sent, and can still read the answers.
    func shutdownWrite() {
        _ = Glibc.shutdown(fd, Int32(SHUT_WR))
    }

    /// Connects to `host:port` (IPv4 or IPv6 literal), from the IPv4 address `source` when given
    /// (any of 127.0.0.0/8 works on Linux, so tests can play several clients), and sends `first`
    /// at once, as a real client sends its request with its connection: the server's header
    /// timeout runs from the accept, and a test task that waits its turn on a busy machine
    /// between connecting and sending would otherwise look like a slow client.
    static func connect(port: Int, host: String = "127.0.0.1", from source: String? = nil, sending first: String? = nil) async throws
        -> TestClient
    {
        let first = first.map { Array($0.utf8) } ?? []
        return try await offload {
            let isV6 = host.contains(":")
            let fd = socket(isV6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw Failure(description: "socket failed: \(errno)") }
            // Generous: the whole test suite shares two cores, so a busy machine must not fail a test.
            var timeout = timeval(tv_sec: 60, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            if let source {
                var local = sockaddr_in()
                local.sin_family = sa_family_t(AF_INET)
                inet_pton(AF_INET, source, &local.sin_addr)
                let bound = withUnsafePointer(to: &local) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
                }
                guard bound == 0 else {
                    let number = errno
                    Glibc.close(fd)
                    throw Failure(description: "bind to \(source) failed: errno \(number)")
                }
            }
            let result: Int32
            if isV6 {
                var address = sockaddr_in6()
                address.sin6_family = sa_family_t(AF_INET6)
                address.sin6_port = UInt16(port).bigEndian
                inet_pton(AF_INET6, host, &address.sin6_addr)
                result = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
                }
            } else {
                var address = sockaddr_in()
                address.sin_family = sa_family_t(AF_INET)
                address.sin_port = UInt16(port).bigEndian
                inet_pton(AF_INET, host, &address.sin_addr)
                result = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
                }
            }
            guard result == 0 else {
                let number = errno
                Glibc.close(fd)
                throw Failure(description: "connect failed: errno \(number)")
            }
            let client = TestClient(fd: fd)
            try sendAll(first, on: fd)
            return client
        }
    }

    /// Sends all of `text` (UTF-8).
    func send(_ text: String) async throws {
        try await send(Array(text.utf8))
    }

    func send(_ bytes: [UInt8]) async throws {
        try await Self.offload { [fd] in try Self.sendAll(bytes, on: fd) }
    }

    private static func sendAll(_ bytes: [UInt8], on fd: Int32) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw Failure(description: "send failed: errno \(errno)") }
            offset += sent
        }
    }

    /// Reads one response. `bodyExpected: false` for HEAD (Content-Length without a body).
    func readResponse(bodyExpected: Bool = true) async throws -> Response {
        while true {
            if let end = headEnd() {
                let head = String(decoding: pending[..<end], as: UTF8.self)
                var lines = head.components(separatedBy: "\r\n")
                let statusLine = lines.removeFirst()
                let parts = statusLine.split(separator: " ", maxSplits: 2)
                guard parts.count >= 2, let status = Int(parts[1]) else {
                    throw Failure(description: "bad status line: \(statusLine)")
                }
                let headers = lines.compactMap { line -> (name: String, value: String)? in
                    guard let colon = line.firstIndex(of: ":") else { return nil }
                    return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
                }
                var response = Response(statusLine: statusLine, status: status, headers: headers, body: "")
                let length = bodyExpected ? Int(response.header("Content-Length") ?? "0") ?? 0 : 0
                while pending.count < end + 4 + length {
                    guard try await receiveMore() else { throw Failure(description: "closed in the middle of a body") }
                }
                response.body = String(decoding: pending[(end + 4)..<(end + 4 + length)], as: UTF8.self)
                pending.removeFirst(end + 4 + length)
                return response
            }
            guard try await receiveMore() else {
                throw Failure(description: "connection closed before a response; got \(String(decoding: pending, as: UTF8.self).debugDescription)")
            }
        }
    }

    /// True when the server closes the connection (EOF or reset) without sending more bytes.
    func isClosedWithoutData() async -> Bool {
        guard pending.isEmpty else { return false }
        do {
            return try await receiveMore() == false
        } catch {
            return false
        }
    }

    /// Whether the connection is still open: nothing arrives within `milliseconds`.
    func staysOpen(milliseconds: Int) async -> Bool {
        let fd = fd
        return await Self.offloadQuietly {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            return poll(&poller, 1, Int32(milliseconds)) == 0
        }
    }

    private func headEnd() -> Int? {
        guard pending.count >= 4 else { return nil }
        for index in 0...(pending.count - 4)
        where pending[index] == 13 && pending[index + 1] == 10 && pending[index + 2] == 13 && pending[index + 3] == 10 {
            return index
        }
        return nil
    }

    /// Reads more bytes; false on EOF or reset. Throws on timeout.
    private func receiveMore() async throws -> Bool {
        let fd = fd
        let chunk: [UInt8]? = try await Self.offload {
            var buffer = [UInt8](repeating: 0, count: 65536)
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 { return Array(buffer[..<count]) }
            if count == 0 || errno == ECONNRESET { return nil }
            throw Failure(description: "recv failed or timed out: errno \(errno)")
        }
        guard let chunk else { return false }
        pending += chunk
        return true
    }

    private static func offload<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue(label: "test-client").async { continuation.resume(with: Result { try work() }) }
        }
    }

    private static func offloadQuietly<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            DispatchQueue(label: "test-client").async { continuation.resume(returning: work()) }
        }
    }
}
