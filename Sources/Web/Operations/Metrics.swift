import Logging
import Synchronization

/// Request figures for `/metrics`, counted by `Edge`: requests by route and status,
/// a latency histogram per route, requests in flight, and what the outcome-bearing routes
/// answered: redemptions by status and store webhooks by source and outcome.
public final class Metrics: Sendable {
    private struct RouteKey: Hashable {
        let method: String
        let route: String
    }

    /// One route's figures: found with one lookup per request.
    private struct RouteFigures {
        var requestsByStatus: [Int: Int] = [:]
        var latency = Histogram()

        mutating func record(status: Int, seconds: Double) {
            requestsByStatus[status, default: 0] += 1
            latency.observe(seconds)
        }
    }

    private struct State {
        var routes: [RouteKey: RouteFigures] = [:]
        var redemptions: [String: Int] = [:]
        var webhooks: [WebhookKey: Int] = [:]
    }

    private struct WebhookKey: Hashable {
        let source: String
        let outcome: String
    }

    /// The route whose outcomes are redemptions.
    static let redeemRoute = "/api/v1/redeem"
    /// Webhook routes by the source label they are counted under.
    static let webhookSources = ["/webhooks/stripe": "stripe", "/webhooks/apple": "apple", "/webhooks/google": "google"]

    private let state = Mutex(State())
    private let inFlight = Atomic<Int>(0)

    public init() {}

    public func requestStarted() { inFlight.wrappingAdd(1, ordering: .relaxed) }

    /// Records a finished request. `route` is the matched pattern (never the raw path, so
    /// tokens in paths never become label values); unmatched requests use `unmatched`.
    /// `outcome` is what the handler said it did (`HTTPResponse.outcome`), if anything.
    /// `method` is labelled as sent only when it is one of `knownMethods`; any other token
    /// counts as `other`, so made-up methods cannot grow the exposition without bound.
    public func requestFinished(method: String, route: String, status: Int, outcome: String? = nil, seconds: Double) {
        inFlight.wrappingSubtract(1, ordering: .relaxed)
        let method = Self.methodLabel(method)
        let key = RouteKey(method: method, route: route)
        // Only a POST can be a redemption or a webhook.
        let isPost = method == "POST"
        let source = isPost ? Self.webhookSources[route] : nil
        state.withLock { state in
            state.routes[key, default: RouteFigures()].record(status: status, seconds: seconds)
            if isPost, route == Self.redeemRoute {
                state.redemptions[outcome ?? Self.outcome(forStatus: status), default: 0] += 1
            } else if let source {
                state.webhooks[WebhookKey(source: source, outcome: outcome ?? Self.outcome(forStatus: status)), default: 0] += 1
            }
        }
    }

    /// The methods of RFC 9110 §9 (and PATCH) labelled by name; every other token is `other`.
    static let knownMethods: Set<String> = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "CONNECT", "TRACE"]

    /// The label a request's method is counted under: its name if known, else `other`.
    static func methodLabel(_ method: String) -> String {
        switch method {
        case "GET", "POST", "HEAD": method  // the common ones, without hashing
        default: knownMethods.contains(method) ? method : "other"
        }
    }

    public var requestsInFlight: Int { inFlight.load(ordering: .relaxed) }

    /// Appends the request families to `text`.
    public func write(to text: inout PrometheusText) {
        let snapshot = state.withLock { $0 }
        text.family("tollgate_http_requests_total", .counter, help: "HTTP requests by method, route and status.")
        let routeKeys = snapshot.routes.keys.sorted(by: { ($0.route, $0.method) < ($1.route, $1.method) })
        for key in routeKeys {
            let counts = snapshot.routes[key]?.requestsByStatus ?? [:]
            for status in counts.keys.sorted() {
                text.sample(
                    "tollgate_http_requests_total", [("method", key.method), ("route", key.route), ("status", String(status))], counts[status] ?? 0)
            }
        }
        text.family("tollgate_http_request_duration_seconds", .histogram, help: "Time from a complete request to its response, by route.")
        for key in routeKeys {
            if let histogram = snapshot.routes[key]?.latency {
                text.histogram("tollgate_http_request_duration_seconds", [("method", key.method), ("route", key.route)], histogram)
            }
        }
        text.family("tollgate_http_requests_in_flight", .gauge, help: "Requests being handled now.")
        text.sample("tollgate_http_requests_in_flight", requestsInFlight)
        text.family(
            "tollgate_redemptions_total", .counter,
            help: "POST /api/v1/redeem answers by status (API.md's statuses; rejected: the request was refused before redeeming).")
        for status in snapshot.redemptions.keys.sorted() {
            text.sample("tollgate_redemptions_total", [("status", status)], snapshot.redemptions[status] ?? 0)
        }
        text.family(
            "tollgate_webhooks_total", .counter,
            help: "Store webhooks by source and outcome (rejected: bad signature or body; error: answered 5xx so the sender retries).")
        for key in snapshot.webhooks.keys.sorted(by: { ($0.source, $0.outcome) < ($1.source, $1.outcome) }) {
            text.sample("tollgate_webhooks_total", [("source", key.source), ("outcome", key.outcome)], snapshot.webhooks[key] ?? 0)
        }
    }

    /// The outcome label of an answer whose handler named none.
    private static func outcome(forStatus status: Int) -> String {
        switch status {
        case 500...: "error"
        case 400..<500: "rejected"
        default: "ok"
        }
    }
}
