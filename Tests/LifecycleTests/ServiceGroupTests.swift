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
}
