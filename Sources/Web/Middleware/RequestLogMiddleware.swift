import HTTPCore
import HTTPRouting
import Logging

/// One log line per request: method, route pattern (never the raw path or query), status,
/// outcome and duration.
struct RequestLogMiddleware: Middleware {
    func handle(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        let started = MonotonicClock.seconds()
        let response = try await next(request, context)
        var fields: [(String, LogValue)] = [
            ("method", .string(request.method.rawValue)),
            ("route", .string(context.route ?? "unmatched")),
            ("status", .int(response.status.code)),
            ("duration_ms", .double(((MonotonicClock.seconds() - started) * 1_000_000).rounded() / 1000))
        ]
        if let outcome = response.outcome { fields.append(("outcome", .string(outcome))) }
        context.logger.info("request", fields)
        return response
    }
}
