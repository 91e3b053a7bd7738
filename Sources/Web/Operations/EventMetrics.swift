import UseCases

/// The event-delivery part of `/metrics`: deliveries by status (from the database: queued,
/// delivered, failed), and per endpoint (by id, never its URL) attempts and answer latency.
struct EventMetrics: Sendable {
    let stats: EventDeliveryStats
    let operations: OperatorActions

    /// - Throws: `StorageError` when the counts cannot be read.
    func render() async throws -> String {
        let counts = try await operations.eventCounts()
        var out = "# HELP tollgate_events_deliveries Event deliveries by status (pending: queued or being sent).\n"
        out += "# TYPE tollgate_events_deliveries gauge\n"
        for status in ["pending", "delivered", "failed"] {
            out += "tollgate_events_deliveries{status=\"\(status)\"} \(counts[status] ?? 0)\n"
        }
        let endpoints = stats.snapshot().sorted { $0.key < $1.key }
        out += "# HELP tollgate_events_attempts_total Delivery attempts since start, by endpoint and result.\n"
        out += "# TYPE tollgate_events_attempts_total counter\n"
        for (id, endpoint) in endpoints {
            out += "tollgate_events_attempts_total{endpoint=\"\(id)\",result=\"delivered\"} \(endpoint.delivered)\n"
            out += "tollgate_events_attempts_total{endpoint=\"\(id)\",result=\"failed\"} \(endpoint.failedAttempts)\n"
        }
        out += "# HELP tollgate_events_failed_total Deliveries given up on since start (3 days of retries), by endpoint.\n"
        out += "# TYPE tollgate_events_failed_total counter\n"
        for (id, endpoint) in endpoints {
            out += "tollgate_events_failed_total{endpoint=\"\(id)\"} \(endpoint.failed)\n"
        }
        out += "# HELP tollgate_events_delivery_duration_seconds Time from sending an event to the endpoint's answer.\n"
        out += "# TYPE tollgate_events_delivery_duration_seconds histogram\n"
        for (id, endpoint) in endpoints {
            var cumulative = 0
            for (index, bound) in EventDeliveryStats.latencyBuckets.enumerated() {
                cumulative += endpoint.bucketCounts[index]
                out += "tollgate_events_delivery_duration_seconds_bucket{endpoint=\"\(id)\",le=\"\(bound)\"} \(cumulative)\n"
            }
            out += "tollgate_events_delivery_duration_seconds_bucket{endpoint=\"\(id)\",le=\"+Inf\"} \(endpoint.latencyCount)\n"
            out += "tollgate_events_delivery_duration_seconds_sum{endpoint=\"\(id)\"} \(endpoint.latencySum)\n"
            out += "tollgate_events_delivery_duration_seconds_count{endpoint=\"\(id)\"} \(endpoint.latencyCount)\n"
        }
        return out
    }
}
