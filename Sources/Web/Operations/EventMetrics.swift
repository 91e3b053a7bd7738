import Logging
import UseCases

/// The event-delivery part of `/metrics`: deliveries by status (from the database: queued,
/// delivered, failed), and per endpoint (by id, never its URL) attempts and answer latency.
struct EventMetrics: Sendable {
    let stats: EventDeliveryStats
    let operations: OperatorActions

    /// - Throws: `StorageError` when the counts cannot be read.
    func write(to text: inout PrometheusText) async throws {
        let counts = try await operations.eventCounts()
        text.family("tollgate_events_deliveries", .gauge, help: "Event deliveries by status (pending: queued or being sent).")
        for status in ["pending", "delivered", "failed"] {
            text.sample("tollgate_events_deliveries", [("status", status)], counts[status] ?? 0)
        }
        let endpoints = stats.snapshot().sorted { $0.key < $1.key }
        text.family("tollgate_events_attempts_total", .counter, help: "Delivery attempts since start, by endpoint and result.")
        for (id, endpoint) in endpoints {
            text.sample("tollgate_events_attempts_total", [("endpoint", id), ("result", "delivered")], endpoint.delivered)
            text.sample("tollgate_events_attempts_total", [("endpoint", id), ("result", "failed")], endpoint.failedAttempts)
        }
        text.family(
            "tollgate_events_failed_total", .counter, help: "Deliveries given up on since start (3 days of retries), by endpoint.")
        for (id, endpoint) in endpoints {
            text.sample("tollgate_events_failed_total", [("endpoint", id)], endpoint.failed)
        }
        text.family(
            "tollgate_events_delivery_duration_seconds", .histogram, help: "Time from sending an event to the endpoint's answer.")
        for (id, endpoint) in endpoints {
            text.histogram("tollgate_events_delivery_duration_seconds", [("endpoint", id)], endpoint.latency)
        }
    }
}
