import Logging

/// Runs services together and stops them together: on a termination signal (when asked to wait
/// for one), when the caller's task is cancelled, or when one of them fails, every other
/// service's task is cancelled and `run()` returns once all have finished. swift-service-lifecycle's
/// `ServiceGroup` in miniature: no polling, cancellation is the stop signal.
public struct ServiceGroup: Sendable {
    let services: [any Service]
    let logger: Logger

    public init(services: [any Service], logger: Logger) {
        self.services = services
        self.logger = logger
    }

    /// Runs every service until cancelled or until one fails; then stops the rest.
    /// - Parameter signals: termination signals (SIGTERM, SIGINT) that stop the group gracefully.
    /// - Throws: the first error a service threw.
    public func run(stoppingOn signals: [Int32] = []) async throws {
        do {
            try await withThrowingDiscardingTaskGroup { group in
                for service in services {
                    group.addTask { try await service.run() }
                }
                if !signals.isEmpty {
                    group.addTask { [logger] in
                        let signal = await TerminationSignal.wait(for: signals)
                        logger.info("signal", [("signal", .int(Int(signal)))])
                        throw StopRequested()
                    }
                }
            }
        } catch is StopRequested {
            return
        }
    }

    /// Thrown by the signal task to make the group cancel the others.
    private struct StopRequested: Error {}
}
