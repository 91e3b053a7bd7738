import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A test-harness failure (a tool missing or failing), not a failure of the code under test.
struct HarnessError: Error, CustomStringConvertible {
    let description: String
}

/// A local TCP port nobody holds right now, below Linux's ephemeral range (so no outgoing
/// connection takes it between this check and the server's bind).
func freePort() throws -> Int {
    for _ in 0..<200 {
        let candidate = Int.random(in: 20000...32767)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HarnessError(description: "socket failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(candidate).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if bound == 0 { return candidate }
    }
    throw HarnessError(description: "no free port found in 20000–32767")
}
