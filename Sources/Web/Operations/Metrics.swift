import Synchronization

/// Request metrics in Prometheus text format: requests by route and status, a latency
/// histogram, in-flight requests. Gauges owned elsewhere (open connections, database
/// errors) are passed in when rendering.
public final class Metrics: Sendable {
    /// Upper bounds of the latency histogram buckets, in seconds.
    public static let latencyBuckets: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    private struct RouteKey: Hashable {
        let method: String
        let route: String
        let status: Int
    }

    private struct State {
        var requests: [RouteKey: Int] = [:]
        var bucketCounts = [Int](repeating: 0, count: Metrics.latencyBuckets.count)
        var latencyCount = 0
        var latencySum = 0.0
    }

    private let state = Mutex(State())
    private let inFlight = Atomic<Int>(0)

    public init() {}

    public func requestStarted() { inFlight.wrappingAdd(1, ordering: .relaxed) }

    /// Records a finished request. `route` is the matched pattern (never the raw path, so
    /// tokens in paths never become label values); unmatched requests use `unmatched`.
    public func requestFinished(method: String, route: String, status: Int, seconds: Double) {
        inFlight.wrappingSubtract(1, ordering: .relaxed)
        let bucket = Metrics.latencyBuckets.firstIndex { seconds <= $0 }
        state.withLock { state in
            state.requests[RouteKey(method: method, route: route, status: status), default: 0] += 1
            if let bucket { state.bucketCounts[bucket] += 1 }
            state.latencyCount += 1
            state.latencySum += seconds
        }
    }

    public var requestsInFlight: Int { inFlight.load(ordering: .relaxed) }

    /// The exposition text (version 0.0.4).
    public func render(openConnections: Int, databaseErrors: Int) -> String {
        let snapshot = state.withLock { $0 }
        var out = "# HELP tollgate_http_requests_total HTTP requests by method, route and status.\n"
        out += "# TYPE tollgate_http_requests_total counter\n"
        let keys = snapshot.requests.keys.sorted { ($0.route, $0.method, $0.status) < ($1.route, $1.method, $1.status) }
        for key in keys {
            out += "tollgate_http_requests_total{method=\"\(label(key.method))\",route=\"\(label(key.route))\",status=\"\(key.status)\"} \(snapshot.requests[key] ?? 0)\n"
        }
        out += "# HELP tollgate_http_request_duration_seconds Time from a complete request to its response.\n"
        out += "# TYPE tollgate_http_request_duration_seconds histogram\n"
        var cumulative = 0
        for (index, bound) in Metrics.latencyBuckets.enumerated() {
            cumulative += snapshot.bucketCounts[index]
            out += "tollgate_http_request_duration_seconds_bucket{le=\"\(bound)\"} \(cumulative)\n"
        }
        out += "tollgate_http_request_duration_seconds_bucket{le=\"+Inf\"} \(snapshot.latencyCount)\n"
        out += "tollgate_http_request_duration_seconds_sum \(snapshot.latencySum)\n"
        out += "tollgate_http_request_duration_seconds_count \(snapshot.latencyCount)\n"
        out += "# HELP tollgate_http_requests_in_flight Requests being handled now.\n"
        out += "# TYPE tollgate_http_requests_in_flight gauge\n"
        out += "tollgate_http_requests_in_flight \(requestsInFlight)\n"
        out += "# HELP tollgate_http_open_connections Open client connections.\n"
        out += "# TYPE tollgate_http_open_connections gauge\n"
        out += "tollgate_http_open_connections \(openConnections)\n"
        out += "# HELP tollgate_database_errors_total Database errors since start.\n"
        out += "# TYPE tollgate_database_errors_total counter\n"
        out += "tollgate_database_errors_total \(databaseErrors)\n"
        return out
    }

    private func label(_ value: String) -> String {
        var out = ""
        for character in value {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }
}
