import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A listening socket for tests to connect to, on 127.0.0.1 (a kernel-chosen port) or a
/// Unix-domain path, plus the raw calls a fake peer needs (accept, send, receive, close).
/// Whoever makes one closes it with `close()`.
public struct LoopbackListener: Sendable {
    /// The listening descriptor.
    public let fd: Int32
    /// The TCP port (0 for a Unix-domain listener).
    public let port: Int
    /// The Unix-domain path (nil over TCP).
    public let path: String?

    /// Listens on 127.0.0.1, port 0, with `backlog`; `listening: false` binds only, so that
    /// connecting to the port is refused while nobody else can take it.
    /// - Throws: `LoopbackError` when a call fails.
    public static func tcp(backlog: Int32 = 16, listening: Bool = true) throws -> LoopbackListener {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        try check(fd >= 0, "socket")
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else {
            Glibc.close(fd)
            throw LoopbackError(description: "cannot bind on loopback: \(String(cString: strerror(errno)))")
        }
        if listening { try check(listen(fd, backlog) == 0, "listen") }
        return LoopbackListener(fd: fd, port: Int(UInt16(bigEndian: address.sin_port)), path: nil)
    }

    /// Listens on a Unix-domain socket at a fresh path in a temporary directory.
    /// - Throws: `LoopbackError` when a call fails.
    public static func unix() throws -> LoopbackListener {
        let path = FileManager.default.temporaryDirectory.path + "/tollgate-sock-\(UInt32.random(in: 0...UInt32.max)).sock"
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        try check(fd >= 0, "socket")
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0 }
        }
        try check(bound, "bind \(path)")
        try check(listen(fd, 16) == 0, "listen")
        return LoopbackListener(fd: fd, port: 0, path: path)
    }

    /// The next connection in the backlog (it is there once the client's connect returned).
    /// - Throws: `LoopbackError` when accept fails.
    public func accept() throws -> Int32 {
        let connection = Glibc.accept(fd, nil, nil)
        try Self.check(connection >= 0, "accept")
        return connection
    }

    /// Closes the listener (and removes its Unix-domain path).
    public func close() {
        Glibc.close(fd)
        if let path { unlink(path) }
    }

    private static func check(_ condition: Bool, _ call: String) throws {
        guard condition else { throw LoopbackError(description: "\(call) failed: \(String(cString: strerror(errno)))") }
    }
}

/// A loopback socket a test needed could not be set up (not a failure of the code under test).
public struct LoopbackError: Error, CustomStringConvertible {
    /// What failed, with `strerror`.
    public let description: String

    /// An error saying `description`.
    public init(description: String) {
        self.description = description
    }
}

/// Sends all of `text` on the raw descriptor `fd`.
public func sendRaw(_ fd: Int32, _ text: String) {
    let bytes = Array(text.utf8)
    _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
}

/// Receives up to `count` bytes from the raw descriptor `fd`, as text.
public func receiveRaw(_ fd: Int32, count: Int = 256) -> String {
    var bytes = [UInt8](repeating: 0, count: count)
    let received = bytes.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
    return String(decoding: bytes.prefix(max(0, received)), as: UTF8.self)
}

/// Closes the raw descriptor `fd`.
public func closeRaw(_ fd: Int32) {
    Glibc.close(fd)
}
