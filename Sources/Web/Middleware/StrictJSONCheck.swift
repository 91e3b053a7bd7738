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
struct StrictJSONCheck: Sendable {
    /// What the route declared it needs.
    let reading: JSONBodyReading

    /// Checks `request`'s JSON body, if it has one, and puts the value in `context` when the
    /// route wants it parsed.
    /// - Throws: `APIError.badRequest` naming the fault.
    func check(_ request: HTTPRequest, context: inout RequestContext) throws {
        guard !request.body.isEmpty, request.declaresJSONBody else { return }
        if reading == .validatedOnly {
            if let violation = StrictJSON.validate(request.body) { throw APIError.badRequest(violation.message) }
            return
        }
        context.jsonBody = try request.strictJSONBody()
    }
}
