import HTTPCore
import HTTPRouting
import Logging

/// What every request passes on its way in and out, from the outside in: metrics, the request
/// log, the security headers, error mapping (`ErrorResponses`) and the strict JSON check
/// (`StrictJSONCheck`, with what the route declared). One middleware, not five: none of the
/// steps awaits anything itself, and each layer of a chain costs the request async frames
/// (about 2,000 instructions a page for the five layers and their closures).
struct EdgeMiddleware: Middleware {
    let metrics: Metrics
    let errors: ErrorResponses
    /// Whether `base_url` is https (then every answer carries `Strict-Transport-Security`).
    let https: Bool
    let strictJSON: StrictJSONCheck

    func handle(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        let started = MonotonicClock.seconds()
        metrics.requestStarted()
        var response: HTTPResponse
        do {
            var inner = context
            try strictJSON.check(request, context: &inner)
            response = try await next(request, inner)
        } catch {
            response = errors.response(for: error, request: request, context: context)
        }
        SecurityHeaders.apply(to: &response, https: https)
        let seconds = MonotonicClock.seconds() - started
        RequestLog.record(response, to: request, context: context, seconds: seconds)
        metrics.requestFinished(
            method: request.method.rawValue, route: context.route ?? "unmatched", status: response.status.code, outcome: response.outcome,
            seconds: seconds)
        return response
    }
}
