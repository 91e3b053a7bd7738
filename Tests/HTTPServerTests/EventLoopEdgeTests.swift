import Foundation
import Glibc
import Testing

@testable import HTTPCore
import Logging

/// A connection's socket is registered once, edge-triggered (`EventLoop.register`): what arrives
/// while no read waits is not lost, and a peer that leaves meanwhile is reported at once.
@Suite("Event loop: one edge-triggered registration per connection")
struct EventLoopEdgeTests {
    /// A started loop reporting hang-ups, and a connected pair (`ours` non-blocking, registered as `id`).
    static func setUp(id: UInt64) throws -> (EventLoop, ours: Int32, theirs: Int32, hungUp: EventLoopPeerGoneTests.ReportedIDs) {
        let loop = try EventLoop(name: "http-loop-edge")
        let hungUp = EventLoopPeerGoneTests.ReportedIDs()
        loop.startThread(
            listener: -1, onAccept: { fd, _ in close(fd) }, onHangUp: { id in hungUp.ids.withLock { $0.append(id) } }, onGone: { _ in })
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        _ = fcntl(pair[0], F_SETFL, fcntl(pair[0], F_GETFL) | O_NONBLOCK)
        #expect(loop.register(fd: pair[0], id: id))
        return (loop, pair[0], pair[1], hungUp)
    }

    @Test("Bytes that arrive while no read waits: the next read wait returns at once")
    func arrivalBeforeTheWait() async throws {
        let (loop, ours, theirs, _) = try Self.setUp(id: 21)
        let request = Array("GET / HTTP/1.1\r\n\r\n".utf8)
        #expect(write(theirs, request, request.count) == request.count)
        // The loop sees the edge now, with no waiter.
        #expect(await eventually(seconds: 30) { loop.state.withLock { $0.arrived.contains(21) } })
        let started = ContinuousClock.now
        let result = await loop.wait(fd: ours, id: 21, writable: false, deadline: MonotonicClock.now() &+ 20_000_000_000, idle: false)
        #expect(result == .ready)
        #expect(ContinuousClock.now - started < .seconds(10), "it waited for the deadline")
        loop.deregister(fd: ours, id: 21)
        #expect(!loop.state.withLock { $0.arrived.contains(21) }, "forgotten with the socket")
        close(ours)
        close(theirs)
        await loop.stop()
    }

    @Test("A peer that leaves while no read waits (its request being answered) is reported to hangUp at once")
    func hangUpWhileAnswering() async throws {
        let (loop, ours, theirs, hungUp) = try Self.setUp(id: 22)
        close(theirs)
        #expect(await eventually(seconds: 30) { hungUp.all == [22] })
        // The task's next wait does not park: its read will see the end.
        #expect(await loop.wait(fd: ours, id: 22, writable: false, deadline: MonotonicClock.now() &+ 20_000_000_000, idle: false) == .ready)
        loop.deregister(fd: ours, id: 22)
        close(ours)
        await loop.stop()
    }

    @Test("A FIN that came with data: once a read has taken the data, the next read wait still returns at once")
    func finWithData() async throws {
        let (loop, ours, theirs, hungUp) = try Self.setUp(id: 23)
        let request = Array("GET / HTTP/1.1\r\n\r\n".utf8)
        #expect(write(theirs, request, request.count) == request.count)
        #expect(shutdown(theirs, Int32(SHUT_WR)) == 0)
        #expect(await eventually(seconds: 30) { hungUp.all == [23] })
        let deadline = MonotonicClock.now() &+ 20_000_000_000
        #expect(await loop.wait(fd: ours, id: 23, writable: false, deadline: deadline, idle: false) == .ready)
        // The connection's read: all of the request, fewer bytes than it asked for, so it waits
        // next instead of reading; the FIN raises no new event.
        var buffer = [UInt8](repeating: 0, count: 1024)
        #expect(read(ours, &buffer, buffer.count) == request.count)
        let started = ContinuousClock.now
        #expect(await loop.wait(fd: ours, id: 23, writable: false, deadline: deadline, idle: false) == .ready)
        #expect(ContinuousClock.now - started < .seconds(10), "the FIN was forgotten: the wait ran to its deadline")
        #expect(read(ours, &buffer, buffer.count) == 0)
        loop.deregister(fd: ours, id: 23)
        #expect(!loop.state.withLock { $0.peerClosed.contains(23) }, "forgotten with the socket")
        close(ours)
        close(theirs)
        await loop.stop()
    }
}
