import Lifecycle

extension HTTPServer: Service {
    /// Serves until the task is cancelled, then shuts down gracefully (in-flight requests get
    /// `shutdownGracePeriod`). Binds first unless `start()` already did.
    /// - Throws: `HTTPServerError` when the address cannot be bound.
    public func run() async throws {
        if !isStarted { try start() }
        await withTaskCancellationHandler {
            await waitUntilStopped()
        } onCancel: {
            Task { await self.shutdown() }
        }
    }
}
