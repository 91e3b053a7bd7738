import HTTPCore
import HTTPRouting
import JSON

/// Reads every body sent as JSON (`application/json`, `*/*+json`) once, to strict RFC 8259
/// (`JSONValue.parse`), before its route runs, and hands the value on as `context.jsonBody`:
/// routes decode that value, never the bytes. The one place JSON strictness is checked: 400
/// `bad_request` naming the fault and its byte offset.
struct StrictJSONMiddleware: Middleware {
    func handle(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        guard !request.body.isEmpty, request.declaresJSONBody else { return try await next(request, context) }
        var context = context
        context.jsonBody = try request.strictJSONBody()
        return try await next(request, context)
    }
}
