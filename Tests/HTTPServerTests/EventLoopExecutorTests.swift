import Foundation
import Synchronization
import Testing

@testable import HTTPCore

/// The event loops run their connections' tasks (`EventLoop+Executor`): a request is read,
/// answered and parked on one loop thread, the loops are shared by every server of the process,
/// and one server's stop ends only its own connections.
@Suite("Event loops: the connections' executor, shared by the process's servers")
struct EventLoopExecutorTests {
    /// The kernel's name of the calling thread.
    static func threadName() -> String {
        ((try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Answers with the name of the thread its responder ran on.
    final class ThreadNameResponder: HTTPResponder {
        func respond(to request: HTTPRequest, plan: RoutePlan, info context: RequestInfo) async -> HTTPResponse {
            HTTPResponse(status: .ok, contentType: "text/plain", body: EventLoopExecutorTests.threadName())
        }

        func protocolErrorResponse(status: HTTPStatus, message: String, info context: RequestInfo) -> HTTPResponse {
            HTTPResponse(status: status, contentType: "text/plain", body: message)
        }
    }

    @Test("A connection's responder runs on one of the process's loop threads, not the cooperative pool")
    func respondersRunOnTheLoops() async throws {
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0), responder: ThreadNameResponder(), logger: .disabled)
        try server.start()
        let client = try await TestClient.connect(port: server.port, sending: "GET / HTTP/1.1\r\nHost: h\r\n\r\n")
        let first = try await client.readResponse()
        try await client.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
        let second = try await client.readResponse()
        #expect(first.body.hasPrefix("http-loop-"), "ran on \(first.body)")
        // The keep-alive connection stays on its loop.
        #expect(second.body == first.body)
        await server.shutdown()
    }

    @Test("Stopping one server leaves another's idle keep-alive connection open on the shared loops")
    func oneServerStopsAlone() async throws {
        try await withServer { _, stayingPort in
            var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
            configuration.shutdownGracePeriod = .seconds(2)
            let stopping = HTTPServer(configuration: configuration, responder: TestResponder(), logger: .disabled)
            try stopping.start()
            let staying = try await TestClient.connect(port: stayingPort, sending: "GET /one HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(try await staying.readResponse().status == 200)
            let leaving = try await TestClient.connect(port: stopping.port, sending: "GET /one HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(try await leaving.readResponse().status == 200)

            await stopping.shutdown()
            // The stopped server's idle connection was closed; the other server's was not.
            #expect(await leaving.isClosedWithoutData())
            try await staying.send("GET /two HTTP/1.1\r\nHost: h\r\n\r\n")
            let second = try await staying.readResponse()
            #expect(second.status == 200 && second.body == "GET /two ")
        }
    }

    /// A continuation a test resumes from outside the loop.
    final class Gate: Sendable {
        let continuation = Mutex<CheckedContinuation<Void, Never>?>(nil)
        var isWaiting: Bool { continuation.withLock { $0 != nil } }
        func open() { continuation.withLock { $0.take() }?.resume() }
    }

    @Test("A task resumed from another thread wakes its sleeping loop, and still runs once the loop has stopped")
    func jobsFromOtherThreads() async throws {
        let loop = try EventLoop(name: "http-loop-test")
        loop.startConnectionLoop()
        let gate = Gate()
        let task = Task(executorPreference: loop) { () -> [String] in
            let before = EventLoopExecutorTests.threadName()
            await withCheckedContinuation { continuation in gate.continuation.withLock { $0 = continuation } }
            return [before, EventLoopExecutorTests.threadName()]
        }
        #expect(await eventually(seconds: 30) { gate.isWaiting })
        // Resumed from this task's thread while the loop sleeps in epoll_wait with no deadline.
        let second = Task(executorPreference: loop) { EventLoopExecutorTests.threadName() }
        #expect(await second.value == "http-loop-test")

        await loop.stop()
        gate.open()
        let names = await task.value
        #expect(names.first == "http-loop-test")
        // The loop's thread is gone: the rest of the task ran on a Dispatch thread.
        #expect(names.last != "http-loop-test")
    }
}
