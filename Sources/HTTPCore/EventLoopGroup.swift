import Synchronization
internal import Foundation

/// The loops that run every server's connections in this process, one per processor it may use
/// (`activeProcessorCount`): the work of all connections runs on that many threads, whatever the
/// number of servers (the tests start hundreds; a process serving one port starts one). Each
/// server keeps its own accepting loop, so a busy responder never delays an accept.
final class EventLoopGroup: Sendable {
    let loops: [EventLoop]

    private init(count: Int) throws(HTTPServerError) {
        var loops: [EventLoop] = []
        for index in 0..<count { loops.append(try EventLoop(name: "http-loop-\(index)")) }
        for loop in loops { loop.startConnectionLoop() }
        self.loops = loops
    }

    /// The loop connection `id` runs on: each in turn.
    func loop(for id: UInt64) -> EventLoop {
        loops[Int(id % UInt64(loops.count))]
    }

    private static let made = Mutex<EventLoopGroup?>(nil)

    /// The process's group, made (and its threads started) on first use; they run until the process exits.
    /// - Throws: `HTTPServerError` when an epoll instance cannot be made.
    static func shared() throws(HTTPServerError) -> EventLoopGroup {
        try made.withLock { (made: inout EventLoopGroup?) throws(HTTPServerError) -> EventLoopGroup in
            if let made { return made }
            let group = try EventLoopGroup(count: max(1, ProcessInfo.processInfo.activeProcessorCount))
            made = group
            return group
        }
    }
}
