import Dispatch
import Glibc
import Synchronization
import Testing
@testable import HTTPCore

/// What a client connecting while the server stops meets: in a rolling upgrade the balancer
/// (or Stripe) sends a request to an instance that has just been told to stop.
@Suite struct HTTPServerStopTests {
    @Test("Connections made while the server stops are answered 200 or refused by the kernel, never a 503")
    func connectionsDuringStopAreServedOrRefused() async throws {
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.shutdownGracePeriod = .seconds(30)
        configuration.maxConnections = 4096
        configuration.maxConnectionsPerClient = 4096
        let server = HTTPServer(configuration: configuration, responder: TestResponder(), logger: .disabled)
        try server.start()
        let port = server.port

        // A thread connects 600 times in a burst, writing each request at once (the kernel
        // queues it whether or not the server has accepted the connection yet); the stop begins
        // after the first 150, while the server is still accepting the rest.
        let connected = Atomic<Int>(0)
        let burst = Task.detached { () -> [Int32] in
            await withCheckedContinuation { continuation in
                DispatchQueue(label: "connection-burst").async {
                    var sockets: [Int32] = []
                    for _ in 0..<600 {
                        guard let fd = Self.connect(port: port) else { break }
                        Self.send(fd, "GET /during-stop HTTP/1.1\r\nHost: h\r\n\r\n")
                        sockets.append(fd)
                        connected.add(1, ordering: .relaxed)
                    }
                    continuation.resume(returning: sockets)
                }
            }
        }
        while connected.load(ordering: .relaxed) < 150 { try await Task.sleep(for: .milliseconds(1)) }
        await server.shutdown()
        let sockets = await burst.value

        var statuses: [String: Int] = [:]
        for fd in sockets {
            statuses[Self.statusLine(fd), default: 0] += 1
            close(fd)
        }
        #expect(sockets.count >= 150)
        #expect(statuses.keys.allSatisfy { $0 == "200" || $0 == "no answer" }, "\(statuses)")
    }

    @Test("A connection accepted before the stop, whose request comes after it began, is answered")
    func firstRequestAfterTheStopBeganIsAnswered() async throws {
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.shutdownGracePeriod = .seconds(30)
        // The request comes late on purpose: only after the stop began, whenever this task gets to it.
        configuration.headerReadTimeout = .seconds(120)
        let server = HTTPServer(configuration: configuration, responder: TestResponder(), logger: .disabled)
        try server.start()
        let port = server.port
        let client = try await TestClient.connect(port: port)
        #expect(await eventually { server.openConnections == 1 }, "accepted")
        let stopping = Task { await server.shutdown() }
        // The stop has begun once the port refuses (the listener closes first).
        #expect(await eventually { Self.connect(port: port).map { close($0) } == nil }, "the listener closed")
        try await client.send("GET /late HTTP/1.1\r\nHost: h\r\n\r\n")
        let response = try await client.readResponse()
        #expect(response.status == 200)
        #expect(response.header("Connection") == "close")
        await stopping.value
    }

    /// A blocking connect with 30 s timeouts; nil once the port refuses (the listener is closed).
    private static func connect(port: Int) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(fd)
            return nil
        }
        return fd
    }

    private static func send(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// The answer's status code, or "no answer" when the connection was reset or closed first.
    private static func statusLine(_ fd: Int32) -> String {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1024)
        while !received.contains(UInt8(ascii: "\n")) {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            received += chunk.prefix(count)
        }
        let line = String(decoding: received.prefix { $0 != UInt8(ascii: "\r") }, as: UTF8.self)
        let parts = line.split(separator: " ")
        return parts.count >= 2 && line.hasPrefix("HTTP/1.1") ? String(parts[1]) : "no answer"
    }
}
