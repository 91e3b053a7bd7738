import HTTPCore
import HTTPRouting
import Logging
import Domain
import Foundation
import UseCases

/// `/healthz`, `/readyz`, `/metrics`: what a load balancer and Prometheus read.
struct OperationsRoutes {
    /// Throws when the database does not accept writes.
    let checkWritable: @Sendable () async throws -> Void
    /// The database's figures, read when scraped.
    let database: @Sendable () -> DatabaseFigures
    let metrics: Metrics
    /// Mail waiting and given up on.
    let outboxDepth: @Sendable () async throws -> ViewOutbox.Depth
    /// Reads the server's open-connection count (the server is created after the routes).
    let openConnections: @Sendable () -> Int
    /// Event delivery figures, when the service has an event worker.
    var events: EventMetrics?
    /// What retention deleted, when the service runs retention.
    var retention: RetentionStats?
    /// What the reconciler found, when it runs.
    var reconcile: ReconcileStats?
    /// Link-out reports owed to the platforms.
    var linkOut: LinkOutMetrics?
    /// The time-to-redeem histogram (first redemptions taken when scraped).
    var funnel: FunnelReport?
    var now: @Sendable () -> Date = { Date() }

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
        group.add(.get, "/metrics") { [metrics, database, openConnections, outboxDepth, events, retention, reconcile, linkOut, funnel, now] _, _ in
            var text = PrometheusText()
            ProcessMetrics.write(to: &text)
            metrics.write(to: &text)
            text.family("tollgate_http_open_connections", .gauge, help: "Open client connections.")
            text.sample("tollgate_http_open_connections", openConnections())
            Self.write(database(), to: &text)
            let outbox = try await outboxDepth()
            text.family("tollgate_mail_outbox_waiting", .gauge, help: "Mail not yet accepted by the mail transport (pending or being sent).")
            text.sample("tollgate_mail_outbox_waiting", outbox.waiting)
            text.family("tollgate_mail_outbox_failed", .gauge, help: "Mail given up on (a permanent error or retries for too long).")
            text.sample("tollgate_mail_outbox_failed", outbox.failed)
            if let events { try await events.write(to: &text) }
            if let retention { Self.write(retention.snapshot(), to: &text) }
            if let reconcile { ReconcileMetrics.write(reconcile, now: now(), to: &text) }
            if let linkOut { try await linkOut.write(to: &text, now: now()) }
            if let funnel {
                try await funnel.observeRedemptions()
                text.family(
                    "tollgate_time_to_redeem_seconds", .histogram,
                    help: "Seconds from a web purchase's payment to its first redemption or link (each observed once).")
                text.histogram("tollgate_time_to_redeem_seconds", [], funnel.times.snapshot())
            }
            return .text(text.text, contentType: "text/plain; version=0.0.4; charset=utf-8")
        }
    }
}

extension OperationsRoutes {
    static func write(_ retention: RetentionStats.Snapshot, to text: inout PrometheusText) {
        text.family("tollgate_retention_deleted_rows_total", .counter, help: "Rows retention deleted since start, by table.")
        for table in Retention.Table.allCases.map(\.rawValue) + [RetentionWorker.mailTable] {
            text.sample("tollgate_retention_deleted_rows_total", [("table", table)], retention.deleted[table] ?? 0)
        }
        text.family(
            "tollgate_retention_batch_duration_seconds", .histogram,
            help: "Time each retention batch's statements took inside its write transaction.")
        text.histogram("tollgate_retention_batch_duration_seconds", [], retention.batchSeconds)
        text.family("tollgate_retention_passes_total", .counter, help: "Retention passes completed since start.")
        text.sample("tollgate_retention_passes_total", retention.passes)
    }

    static func write(_ figures: DatabaseFigures, to text: inout PrometheusText) {
        text.family("tollgate_database_errors_total", .counter, help: "Database errors since start.")
        text.sample("tollgate_database_errors_total", figures.errors)
        text.family(
            "tollgate_database_write_duration_seconds", .histogram,
            help: "Time from a write's call to its commit (queueing for the writer included).")
        text.histogram("tollgate_database_write_duration_seconds", [], figures.writeLatency)
        if let walBytes = figures.walBytes {
            text.family("tollgate_database_wal_bytes", .gauge, help: "Size of the write-ahead log file.")
            text.sample("tollgate_database_wal_bytes", walBytes)
        }
    }
}

/// What `/metrics` shows of the database, read when scraped.
public struct DatabaseFigures: Sendable {
    /// Storage errors since start.
    public var errors: Int
    /// How long writes took, call to commit.
    public var writeLatency: Histogram
    /// The write-ahead log's size, for a backend that keeps one in a file.
    public var walBytes: Int?

    public init(errors: Int, writeLatency: Histogram, walBytes: Int?) {
        self.errors = errors
        self.writeLatency = writeLatency
        self.walBytes = walBytes
    }
}
