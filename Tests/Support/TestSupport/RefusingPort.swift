#if canImport(Glibc)
    import Glibc
#endif

/// A loopback port where connections are refused: held by a socket bound to it that never
/// listens, so no concurrent test can take the port meanwhile (a stopped server's port can be
/// reused at once by any `bind(0)`). Closed when released.
public final class RefusingPort: Sendable {
    /// The port.
    public let port: Int
    private let fd: Int32

    /// - Throws: `LoopbackError` when no socket can be bound.
    public init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw LoopbackError(description: "socket failed: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else {
            close(fd)
            throw LoopbackError(description: "bind failed: \(String(cString: strerror(errno)))")
        }
        self.fd = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(fd) }
}
