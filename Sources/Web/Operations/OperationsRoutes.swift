import HTTPServer
import Storage

/// `/healthz`, `/readyz`, `/metrics`: what a load balancer and Prometheus read.
struct OperationsRoutes {
    let database: Database
    let metrics: Metrics
    /// Reads the server's open-connection count (the server is created after the routes).
    let openConnections: @Sendable () -> Int

    func register(on router: inout Router) {
        router.add(.get, "/healthz") { _, _ in
            .json { $0.string("status", "ok") }
        }
        router.add(.get, "/readyz") { [database] _, context in
            do {
                try await database.checkWritable()
                return .json { $0.string("status", "ready") }
            } catch {
                context.logger.error("not_ready", [("error", .string(String(describing: error)))])
                throw APIError(status: .serviceUnavailable, code: "upstream_unavailable", message: "The database does not accept writes.")
            }
        }
        router.add(.get, "/metrics") { [metrics, database, openConnections] _, _ in
            .text(
                metrics.render(openConnections: openConnections(), databaseErrors: database.errorCount),
                contentType: "text/plain; version=0.0.4; charset=utf-8")
        }
    }
}
