import HTTPCore
import HTTPRouting
import Logging

/// Counts requests by route and status, their latency, those in flight, and their outcomes.
struct MetricsMiddleware: Middleware {
    let metrics: Metrics

    func handle(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        let started = MonotonicClock.seconds()
        metrics.requestStarted()
        let response = try await next(request, context)
        metrics.requestFinished(
            method: request.method.rawValue, route: context.route ?? "unmatched", status: response.status.code, outcome: response.outcome,
            seconds: MonotonicClock.seconds() - started)
        return response
    }
}
