import Foundation
import Glibc
import Synchronization
import Testing

@testable import HTTPCore
import Logging

/// The epoll thread closes a socket whose peer left while its task waited to read, without
/// waiting for that task to be scheduled: under load, closed connections are released at once.
@Suite("Event loop: a peer gone during a read wait is closed by the loop")
struct EventLoopPeerGoneTests {
    /// The ids a loop reported (gone, hung up), shared with its thread.
    final class ReportedIDs: Sendable {
        let ids = Mutex<[UInt64]>([])
        var all: [UInt64] { ids.withLock { $0 } }
    }

    /// A started loop (on a throwaway listener), a connected pair (`ours` non-blocking), and the
    /// ids the loop reported gone.
    static func setUp() throws -> (EventLoop, ours: Int32, theirs: Int32, listener: Int32, gone: ReportedIDs) {
        let loop = try EventLoop()
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        _ = fcntl(pair[0], F_SETFL, fcntl(pair[0], F_GETFL) | O_NONBLOCK)
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        _ = Glibc.listen(listener, 8)
        let gone = ReportedIDs()
        try loop.start(listener: listener, accept: { fd, _ in close(fd) }, gone: { id in gone.ids.withLock { $0.append(id) } })
        return (loop, pair[0], pair[1], listener, gone)
    }

    /// The inode `fd` refers to, nil when it is closed.
    static func inode(_ fd: Int32) -> UInt? {
        var info = stat()
        return fstat(fd, &info) == 0 ? UInt(info.st_ino) : nil
    }

    @Test("The peer closes with nothing left to read: the wait ends .peerGone, the socket is already closed, the id reported")
    func peerGone() async throws {
        let (loop, ours, theirs, _, gone) = try Self.setUp()
        let inode = Self.inode(ours)
        // A long deadline, taken when the wait starts: under load the task may start late.
        #expect(loop.register(fd: ours, id: 7))
        let waiting = Task { await loop.wait(fd: ours, id: 7, writable: false, deadline: MonotonicClock.now() &+ 60_000_000_000, idle: true) }
        try await Task.sleep(for: .milliseconds(100))
        close(theirs)
        let result = await waiting.value
        #expect(result == .peerGone)
        // Closed by the loop (the number may already serve another test's socket: not ours).
        #expect(Self.inode(ours) != inode, "the loop closed it")
        #expect(gone.all == [7])
        await loop.stop()
    }

    @Test("A last request sent with the FIN (a half-close) is left to the task: .ready, the socket open")
    func dataWithFIN() async throws {
        let (loop, ours, theirs, _, gone) = try Self.setUp()
        #expect(loop.register(fd: ours, id: 8))
        let waiting = Task { await loop.wait(fd: ours, id: 8, writable: false, deadline: MonotonicClock.now() &+ 60_000_000_000, idle: true) }
        try await Task.sleep(for: .milliseconds(100))
        let request = Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        #expect(write(theirs, request, request.count) == request.count)
        _ = shutdown(theirs, Int32(SHUT_WR))
        #expect(await waiting.value == .ready)
        #expect(fcntl(ours, F_GETFD) != -1)
        #expect(gone.all.isEmpty)
        close(ours)
        close(theirs)
        await loop.stop()
    }
}
