import Lifecycle
import Logging
import Synchronization
import Testing

/// A service that finishes only when its task is cancelled (no polling).
private final class Waiter: Service {
    let stopped = Atomic<Bool>(false)

    func run() async throws {
        let stream = AsyncStream<Void> { _ in }
        for await _ in stream {}
        stopped.store(true, ordering: .relaxed)
    }
}

private struct Failing: Service {
    struct Broken: Error {}
    func run() async throws {
        try await Task.sleep(for: .milliseconds(20))
        throw Broken()
    }
}

/// Writes down when its task is cancelled and when it has finished; finishing takes a while (the
/// claim in flight), during which the next service must not yet be told to stop.
private final class Recorder: Service {
    let name: String
    let log: SharedLog

    init(_ name: String, log: SharedLog) {
        self.name = name
        self.log = log
    }

    func run() async throws {
        let stream = AsyncStream<Void> { _ in }
        for await _ in stream {}
        log.lines.withLock { $0.append(name + " stopping") }
        // Finishing what it holds, whatever its task's cancellation says.
        await Task.detached { try? await Task.sleep(for: .milliseconds(30)) }.value
        log.lines.withLock { $0.append(name + " stopped") }
    }
}

/// Shared by the recorders of one test.
private final class SharedLog: Sendable {
    let lines = Mutex<[String]>([])
}

@Suite("Service group")
struct ServiceGroupTests {
    @Test("Cancelling the group's task stops every service and run() returns")
    func cancellationStopsAll() async throws {
        let a = Waiter()
        let b = Waiter()
        let task = Task { try await ServiceGroup(services: [a, b], logger: .disabled).run() }
        try await Task.sleep(for: .milliseconds(50))
        task.cancel()
        try await task.value
        let bothStopped = a.stopped.load(ordering: .relaxed) && b.stopped.load(ordering: .relaxed)
        #expect(bothStopped)
    }

    @Test("A service that fails stops the others and its error comes out of run()")
    func failureStopsOthers() async throws {
        let other = Waiter()
        await #expect(throws: Failing.Broken.self) {
            try await ServiceGroup(services: [other, Failing()], logger: .disabled).run()
        }
        let stopped = other.stopped.load(ordering: .relaxed)
        #expect(stopped)
    }

    @Test("Services stop in the reverse order of their start, each after the one started after it has finished")
    func reverseOrder() async throws {
        let log = SharedLog()
        let storage = Recorder("storage", log: log)
        let worker = Recorder("worker", log: log)
        let server = Recorder("server", log: log)
        let task = Task { try await ServiceGroup(services: [storage, worker, server], logger: .disabled).run() }
        try await Task.sleep(for: .milliseconds(50))
        task.cancel()
        try await task.value
        #expect(
            log.lines.withLock { $0 } == [
                "server stopping", "server stopped", "worker stopping", "worker stopped", "storage stopping", "storage stopped"
            ])
    }

    @Test("A failing service stops the others in reverse order, and its error still comes out of run()")
    func failureStopsInReverse() async throws {
        let log = SharedLog()
        let first = Recorder("first", log: log)
        let second = Recorder("second", log: log)
        await #expect(throws: Failing.Broken.self) {
            try await ServiceGroup(services: [first, second, Failing()], logger: .disabled).run()
        }
        #expect(log.lines.withLock { $0 } == ["second stopping", "second stopped", "first stopping", "first stopped"])
    }
}
