import HTTPCore
import HTTPRouting
import JSON

/// Holds every body sent as JSON (`application/json`, `*/*+json`) to strict RFC 8259
/// (`StrictJSON`) before its route runs, whichever reader the route then uses: Foundation's are
/// lenient (trailing commas, duplicate keys). The one place JSON strictness is checked: 400
/// `bad_request` naming the fault and its byte offset.
struct StrictJSONMiddleware: Middleware {
    func handle(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        if !request.body.isEmpty, request.declaresJSONBody, let violation = StrictJSON.validate(request.body) {
            throw APIError.badRequest(violation.message)
        }
        return try await next(request, context)
    }
}
