import Logging
import Synchronization

/// Runs services together and stops them in the reverse order of their start, as
/// swift-service-lifecycle's `ServiceGroup` does: on a termination signal (when asked to wait for
/// one), when the caller's task is cancelled, or when one of them fails, the last service is
/// cancelled and awaited, then the one before it, and so on; `run()` returns once all have
/// finished. So a service listed after the ones it feeds (the HTTP server after the workers its
/// requests wake) stops first, and the ones it feeds finish what it gave them. No polling:
/// cancellation is the stop signal.
public struct ServiceGroup: Sendable {
    let services: [any Service]
    let logger: Logger

    /// - Parameter services: in start order; they stop in the reverse order.
    public init(services: [any Service], logger: Logger) {
        self.services = services
        self.logger = logger
    }

    /// Runs every service until cancelled or until one fails; then stops them, last first.
    /// - Parameter signals: termination signals (SIGTERM, SIGINT) that stop the group gracefully,
    ///   caught from this call on (a service that listens before it: `run(stoppingOn:)` with
    ///   `TerminationSignals` made before it listens).
    /// - Throws: the first error a service threw.
    public func run(stoppingOn signals: [Int32] = []) async throws {
        try await run(stoppingOn: signals.isEmpty ? nil : TerminationSignals(signals))
    }

    /// Runs every service until cancelled, until one fails or until one of `signals` arrives
    /// (one that came before this call stops the group as soon as it starts); then stops them,
    /// last first.
    /// - Throws: the first error a service threw.
    public func run(stoppingOn signals: TerminationSignals?) async throws {
        let stop = StopRequest()
        var tasks: [Task<Void, Never>] = []
        for service in services {
            tasks.append(
                Task {
                    do {
                        try await service.run()
                    } catch {
                        // A service that throws after being told to stop ends like one that returns.
                        stop.fail(error)
                    }
                })
        }
        let listener = signals.map { signals in
            Task { [logger] in
                let signal = await signals.wait()
                guard !Task.isCancelled else { return }
                logger.info("signal", [("signal", .int(Int(signal)))])
                stop.request()
            }
        }
        await withTaskCancellationHandler {
            await stop.wait()
        } onCancel: {
            stop.request()
        }
        listener?.cancel()
        for task in tasks.reversed() {
            task.cancel()
            await task.value
        }
        if let error = stop.failure { throw error }
    }
}

/// The request to stop: made once (by a signal, a cancellation or a failing service), awaited once.
private final class StopRequest: Sendable {
    private struct State {
        var requested = false
        var waiter: CheckedContinuation<Void, Never>?
        var failure: (any Error)?
    }

    private let state = Mutex(State())

    /// The error of the service whose failure asked for the stop.
    var failure: (any Error)? { state.withLock { $0.failure } }

    /// Asks for the stop with `error`, unless the stop was asked for already.
    func fail(_ error: any Error) {
        let first = state.withLock { state -> Bool in
            guard !state.requested else { return false }
            state.failure = error
            return true
        }
        if first { request() }
    }

    func request() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.requested = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.requested { return true }
                state.waiter = continuation
                return false
            }
            if now { continuation.resume() }
        }
    }
}
