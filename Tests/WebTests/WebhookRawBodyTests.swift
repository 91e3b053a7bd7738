import Foundation
import HTTPCore
import HTTPRouting
import Logging
import Testing

@testable import App
@testable import Web

/// A route declares what it needs of a JSON body (`JSONBodyReading`): the API's routes get it
/// parsed once (`context.jsonBody`); a signed webhook gets its raw bytes, only validated, since
/// its signature is over exactly those bytes and its provider's reader parses them.
@Suite("Webhook bodies: raw bytes, only validated")
struct WebhookRawBodyTests {
    /// A route that answers what it was handed: whether a parsed value came along, and the bytes.
    static func echo(_ request: HTTPRequest, _ context: RequestContext) -> HTTPResponse {
        var response = HTTPResponse(body: request.body)
        response.headers.set("X-Parsed", context.jsonBody == nil ? "no" : "yes")
        return response
    }

    @Test("A .validatedOnly route gets its exact bytes and no parsed value; a .parsed route gets the value; both refuse non-strict JSON")
    func declaredReading() async throws {
        var router = Router()
        router.add(.post, "/hook", jsonBody: .validatedOnly) { request, context in Self.echo(request, context) }
        router.add(.post, "/api/thing") { request, context in Self.echo(request, context) }
        let app = try TestApp()
        let responder = AppResponder(routes: router, metrics: Metrics(), pages: try #require(RoutingTests.pages(app)))
        // Whitespace, an escaped slash and member order a re-serialization would change.
        let body = Array(" {\"z\" : 1,\n \"a\":\"x\\/y\", \"n\": 1.0e0 }\n".utf8)
        func send(_ path: String, _ bytes: [UInt8]) async -> HTTPResponse {
            await responder.respond(
                to: HTTPRequest(method: .post, target: path, headers: ["Content-Type": "application/json"], body: bytes),
                context: .init(requestId: "r", logger: Logger(sink: app.logs)))
        }
        let hook = await send("/hook", body)
        #expect(hook.status == .ok)
        #expect(hook.headers["X-Parsed"] == "no", "a webhook route's body was parsed")
        #expect(hook.body == body, "a webhook route lost its raw bytes")
        let api = await send("/api/thing", body)
        #expect(api.headers["X-Parsed"] == "yes")
        for path in ["/hook", "/api/thing"] {
            #expect(await send(path, Array(#"{"a":1,"a":2}"#.utf8)).status == .badRequest, "\(path)")
        }
    }

    @Test("The service's signed webhooks (Stripe, Google) declare .validatedOnly; the API's JSON routes and Apple's declare .parsed")
    func siteDeclarations() throws {
        let app = try TestApp()
        let routes = app.app.responder.router.routes
        func reading(_ method: HTTPMethod, _ pattern: String) -> JSONBodyReading? {
            routes.first { $0.method == method && $0.pattern == pattern }?.jsonBody
        }
        #expect(reading(.post, "/webhooks/stripe") == .validatedOnly)
        #expect(reading(.post, "/webhooks/google") == .validatedOnly)
        #expect(reading(.post, "/webhooks/apple") == .parsed)
        #expect(reading(.post, "/api/v1/redeem") == .parsed)
        let raw = routes.filter { $0.jsonBody == .validatedOnly }.map(\.pattern).sorted()
        #expect(raw == ["/webhooks/google", "/webhooks/stripe"], "only the webhooks read their own bytes")
    }
}
