#if canImport(Glibc)
    import Glibc
#endif

/// A local TCP port nobody holds right now, for a server (postgres, aiosmtpd) started later on it.
///
/// Drawn at random from 20000–32767, below Linux's ephemeral range (32768–60999) from which the
/// kernel hands out ports to `bind(0)` and outgoing connections: otherwise any socket opened by a
/// concurrent test could take the port between this check and the server's own bind.
/// - Throws: `LoopbackError` when no socket can be made or 200 draws are all taken.
public func freePort() throws -> Int {
    for _ in 0..<200 {
        let candidate = Int.random(in: 20000...32767)
        if try canBind(port: candidate) { return candidate }
    }
    throw LoopbackError(description: "no free port found in 20000–32767")
}

/// Whether 127.0.0.1:`port` can be bound now (the probe socket is closed again at once).
private func canBind(port: Int) throws -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw LoopbackError(description: "socket failed: \(String(cString: strerror(errno)))") }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    return bound == 0
}
