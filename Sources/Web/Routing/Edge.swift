import HTTPCore
import HTTPRouting
import Logging

/// What every request passes on its way in and out, from the outside in: metrics, the request
/// log, the security headers, error mapping (`ErrorResponses`) and the strict JSON check
/// (`StrictJSONCheck`, with what the route declared). Its steps are synchronous and
/// `AppResponder.respond` runs them around the route's chain itself: as a middleware the edge cost
/// every request two more async frames, and a switch back to the connection's executor after each
/// (about 1,100 instructions a page).
struct Edge {
    let metrics: Metrics
    let errors: ErrorResponses
    /// Whether `base_url` is https (then every answer carries `Strict-Transport-Security`).
    let https: Bool
    let strictJSON: StrictJSONCheck

    /// Counts the request in flight; the time it started, for `finish`.
    func start() -> Double {
        let started = MonotonicClock.seconds()
        metrics.requestStarted()
        return started
    }

    /// The context the route gets: the body checked (and parsed, if the route reads it so).
    /// - Throws: `APIError` for a body that is not the JSON the route takes.
    func admit(_ request: HTTPRequest, context: RequestContext) throws -> RequestContext {
        var inner = context
        try strictJSON.check(request, context: &inner)
        return inner
    }

    /// The answer to a request the route (or the check before it) failed with `error`.
    func failure(_ error: any Error, request: HTTPRequest, context: RequestContext) -> HTTPResponse {
        errors.response(for: error, request: request, context: context)
    }

    /// Adds the security headers, then logs and counts the answer.
    func finish(_ response: inout HTTPResponse, request: HTTPRequest, context: RequestContext, started: Double) {
        SecurityHeaders.apply(to: &response, https: https)
        let seconds = MonotonicClock.seconds() - started
        RequestLog.record(response, to: request, context: context, seconds: seconds)
        metrics.requestFinished(
            method: request.method.rawValue, route: context.route ?? "unmatched", status: response.status.code, outcome: response.outcome,
            seconds: seconds)
    }
}
