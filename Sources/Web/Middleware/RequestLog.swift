import HTTPCore
import HTTPRouting
import Logging

/// One log line per request: method, route pattern (never the raw path or query), status,
/// outcome and duration.
enum RequestLog {
    /// Logs `response`, the answer to `request`, which took `seconds`.
    static func record(_ response: HTTPResponse, to request: HTTPRequest, context: RequestContext, seconds: Double) {
        var fields: [(String, LogValue)] = [
            ("method", .string(request.method.rawValue)),
            ("route", .string(context.route ?? "unmatched")),
            ("status", .int(response.status.code)),
            ("duration_ms", .double((seconds * 1_000_000).rounded() / 1000))
        ]
        if let outcome = response.outcome { fields.append(("outcome", .string(outcome))) }
        context.logger.info("request", fields)
    }
}
