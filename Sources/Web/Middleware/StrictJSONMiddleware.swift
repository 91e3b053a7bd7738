import HTTPCore
import HTTPRouting
import JSON

/// Reads every body sent as JSON (`application/json`, `*/*+json`) once, to strict RFC 8259,
/// before its route runs. The one place JSON strictness is checked: 400 `bad_request` naming the
/// fault and its byte offset. For the API's routes it hands the value on as `context.jsonBody`
/// (`JSONValue.parse`): routes decode that value, never the bytes. Under `/webhooks/` it only
/// validates (`StrictJSON.validate`, no value built): a provider's notification is verified over
/// its raw bytes and read by that provider's own reader, and a Stripe event is tens of members
/// deep, so building a value nobody reads cost a webhook about 54k instructions.
struct StrictJSONMiddleware: Middleware {
    func handle(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        guard !request.body.isEmpty, request.declaresJSONBody else { return try await next(request, context) }
        if request.path.hasPrefix("/webhooks/") {
            if let violation = StrictJSON.validate(request.body) { throw APIError.badRequest(violation.message) }
            return try await next(request, context)
        }
        var context = context
        context.jsonBody = try request.strictJSONBody()
        return try await next(request, context)
    }
}
