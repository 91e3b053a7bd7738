import HTTPCore
import HTTPRouting
import JSON

/// Reads every body sent as JSON (`application/json`, `*/*+json`) once, to strict RFC 8259,
/// before its route runs. The one place JSON strictness is checked: 400 `bad_request` naming the
/// fault and its byte offset. What else it does is the route's declaration (`JSONBodyReading`):
/// `.parsed` hands the value on as `context.jsonBody` (`JSONValue.parse`), which routes decode,
/// never the bytes; `.validatedOnly` builds no value (`StrictJSON.validate`) and leaves the raw
/// bytes to the route: a signed webhook is verified over them and read by its provider's own
/// reader, and a Stripe event is tens of members deep, so building a value nobody reads cost a
/// webhook about 54k instructions.
struct StrictJSONMiddleware: Middleware {
    /// What the route declared it needs.
    let reading: JSONBodyReading

    func handle(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        guard !request.body.isEmpty, request.declaresJSONBody else { return try await next(request, context) }
        if reading == .validatedOnly {
            if let violation = StrictJSON.validate(request.body) { throw APIError.badRequest(violation.message) }
            return try await next(request, context)
        }
        var context = context
        context.jsonBody = try request.strictJSONBody()
        return try await next(request, context)
    }
}
