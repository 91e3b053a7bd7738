import HTTPCore
import HTTPRouting

/// `/healthz`, `/readyz`, `/metrics`: what a load balancer and Prometheus read.
struct OperationsRoutes {
    /// Throws when the database does not accept writes.
    let checkWritable: @Sendable () async throws -> Void
    /// Errors the database has counted.
    let databaseErrors: @Sendable () -> Int
    let metrics: Metrics
    /// Reads the server's open-connection count (the server is created after the routes).
    let openConnections: @Sendable () -> Int
    /// Event delivery figures, when the service has an event worker.
    var events: EventMetrics?

    func add(to group: inout RouteGroup) {
        group.add(.get, "/healthz") { _, _ in
            .json { $0.string("status", "ok") }
        }
        group.add(.get, "/readyz") { [checkWritable] _, context in
            do {
                try await checkWritable()
                return .json { $0.string("status", "ready") }
            } catch {
                context.logger.error("not_ready", [("error", .string(String(describing: error)))])
                throw APIError(status: .serviceUnavailable, code: "upstream_unavailable", message: "The database does not accept writes.")
            }
        }
        group.add(.get, "/metrics") { [metrics, databaseErrors, openConnections, events] _, _ in
            var text = metrics.render(openConnections: openConnections(), databaseErrors: databaseErrors())
            if let events { text += try await events.render() }
            return .text(text, contentType: "text/plain; version=0.0.4; charset=utf-8")
        }
    }
}
