internal import Glibc
internal import CLinux

/// Socket address helpers: parsing the configured host, formatting peer addresses and
/// creating the listening socket.
enum SocketAddress {
    /// The peer IP of an accepted socket as text, or nil for other address families.
    static func text(of address: inout sockaddr_storage) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = Int32(address.ss_family)
        let result: UnsafePointer<CChar>? = withUnsafePointer(to: &address) { pointer in
            switch family {
            case AF_INET:
                return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { inet in
                    withUnsafePointer(to: inet.pointee.sin_addr) {
                        inet_ntop(AF_INET, $0, &buffer, socklen_t(buffer.count))
                    }
                }
            case AF_INET6:
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { inet6 in
                    withUnsafePointer(to: inet6.pointee.sin6_addr) {
                        inet_ntop(AF_INET6, $0, &buffer, socklen_t(buffer.count))
                    }
                }
            default:
                return nil
            }
        }
        guard result != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Creates a non-blocking listening socket with `SO_REUSEADDR` on `host:port`; returns the
    /// descriptor and the bound port. `host` is an IPv4 or IPv6 literal (brackets allowed) or
    /// a name resolved with `getaddrinfo`.
    /// - Throws: `HTTPServerError` naming the failing step and `strerror(errno)`.
    static func listen(host: String, port: Int, backlog: Int) throws(HTTPServerError) -> (fd: Int32, port: Int) {
        guard (0...65535).contains(port) else { throw HTTPServerError("invalid port \(port); use 0...65535") }
        var bareHost = host
        if bareHost.hasPrefix("["), bareHost.hasSuffix("]") { bareHost = String(bareHost.dropFirst().dropLast()) }
        let display = bareHost.contains(":") ? "[\(bareHost)]:\(port)" : "\(bareHost):\(port)"
        var storage = sockaddr_storage()
        let length: socklen_t
        let family: Int32
        if let v4 = ipv4(bareHost, port: port) {
            withUnsafeMutableBytes(of: &storage) { raw in
                raw.storeBytes(of: v4, as: sockaddr_in.self)
            }
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
            family = AF_INET
        } else if let v6 = ipv6(bareHost, port: port) {
            withUnsafeMutableBytes(of: &storage) { raw in
                raw.storeBytes(of: v6, as: sockaddr_in6.self)
            }
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            family = AF_INET6
        } else {
            (storage, length, family) = try resolve(bareHost, port: port, display: display)
        }

        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw HTTPServerError("cannot create socket for \(display)", errno: errno) }
        var one: Int32 = 1
        guard setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            let number = errno
            close(fd)
            throw HTTPServerError("cannot set SO_REUSEADDR on \(display)", errno: number)
        }
        let bound = withUnsafePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else {
            let number = errno
            close(fd)
            throw HTTPServerError("cannot bind \(display)", errno: number)
        }
        guard Glibc.listen(fd, Int32(clamping: backlog)) == 0 else {
            let number = errno
            close(fd)
            throw HTTPServerError("cannot listen on \(display)", errno: number)
        }
        var actual = sockaddr_storage()
        var actualLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &actual) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &actualLength) }
        }
        guard named == 0 else {
            let number = errno
            close(fd)
            throw HTTPServerError("cannot read the bound address of \(display)", errno: number)
        }
        let boundPort: UInt16 = withUnsafeBytes(of: &actual) { raw in
            family == AF_INET
                ? raw.load(as: sockaddr_in.self).sin_port.bigEndian
                : raw.load(as: sockaddr_in6.self).sin6_port.bigEndian
        }
        return (fd, Int(boundPort))
    }

    private static func ipv4(_ host: String, port: Int) -> sockaddr_in? {
        var address = sockaddr_in()
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { return nil }
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        return address
    }

    private static func ipv6(_ host: String, port: Int) -> sockaddr_in6? {
        var address = sockaddr_in6()
        guard inet_pton(AF_INET6, host, &address.sin6_addr) == 1 else { return nil }
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_port = UInt16(port).bigEndian
        return address
    }

    private static func resolve(
        _ host: String, port: Int, display: String
    ) throws(HTTPServerError) -> (sockaddr_storage, socklen_t, Int32) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            let text = status == 0 ? "no address" : String(cString: gai_strerror(status))
            throw HTTPServerError("cannot resolve \(display): \(text)")
        }
        defer { freeaddrinfo(list) }
        var storage = sockaddr_storage()
        let length = first.pointee.ai_addrlen
        withUnsafeMutableBytes(of: &storage) { raw in
            if let address = first.pointee.ai_addr {
                raw.copyMemory(from: UnsafeRawBufferPointer(start: address, count: Int(length)))
            }
        }
        return (storage, length, first.pointee.ai_family)
    }
}
