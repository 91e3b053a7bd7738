import Foundation
import HTTPCore
import HTTPRouting
import Logging
import Synchronization
import Testing

@testable import Web
@testable import App

@Suite("Routing, errors and security headers")
struct RoutingTests {
    @Test("The home page is HTML with the app's name and every security header")
    func homePage() async throws {
        let app = try TestApp()
        let response = await app.send(.get, "/")
        #expect(response.status == .ok)
        #expect(response.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(response.text.contains("<title>Get back into your app · Example</title>"))
        let csp = try #require(response.headers["Content-Security-Policy"])
        #expect(csp.contains("default-src 'none'"))
        #expect(csp.contains("frame-ancestors 'none'"))
        #expect(!csp.contains("unsafe-inline"))
        #expect(response.headers["X-Content-Type-Options"] == "nosniff")
        #expect(response.headers["Referrer-Policy"] == "no-referrer")
    }

    @Test("Unknown browser paths get an HTML 404 page", arguments: ["/nope", "/redeem", "/apix", "/static"])
    func htmlNotFound(path: String) async throws {
        let app = try TestApp()
        let response = await app.send(.get, path)
        #expect(response.status == .notFound)
        #expect(response.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(response.text.contains("We could not find this page") && response.text.contains("<code>not_found</code>"))
        #expect(response.headers["Content-Security-Policy"] != nil)
    }

    @Test("Unknown machine paths get the JSON error shape", arguments: ["/api/v1/nope", "/api", "/admin/v1/x", "/webhooks/unknown"])
    func jsonNotFound(path: String) async throws {
        let app = try TestApp()
        let response = await app.send(.post, path, body: "{}")
        #expect(response.status == .notFound)
        #expect(response.headers["Content-Type"] == "application/json; charset=utf-8")
        let error = try #require(response.jsonObject?["error"] as? [String: Any])
        #expect(error["code"] as? String == "not_found")
        #expect(error["retryable"] as? Bool == false)
        #expect((error["message"] as? String)?.isEmpty == false)
    }

    @Test("A wrong method gets 405 with Allow")
    func methodNotAllowed() async throws {
        let app = try TestApp()
        let response = await app.send(.post, "/healthz")
        #expect(response.status == .methodNotAllowed)
        #expect(response.headers["Allow"] == "GET, HEAD")
    }

    @Test("HEAD is answered by the GET route")
    func headUsesGet() async throws {
        let app = try TestApp()
        let response = await app.send(.head, "/healthz")
        #expect(response.status == .ok)
    }

    @Test("An unexpected error becomes a bare 500 and is logged with the request id")
    func unexpectedError() async throws {
        struct Boom: Error {}
        var router = Router()
        router.add(.get, "/api/boom") { _, _ in throw Boom() }
        router.add(.get, "/boom") { _, _ in throw Boom() }
        let app = try TestApp()
        let responder = AppResponder(routes: router, metrics: Metrics(), pages: try #require(Self.pages(app)))
        let request = HTTPRequest(method: .get, target: "/api/boom")
        let logger = Logger(sink: app.logs).with([("request_id", "req-500")])
        let response = await responder.respond(to: request, context: .init(requestId: "req-500", logger: logger))
        #expect(response.status == .internalServerError)
        #expect(response.errorCode == "internal")
        #expect(!response.text.contains("Boom"))
        #expect(app.logs.lines.contains { $0.contains("\"unhandled_error\"") && $0.contains("Boom") && $0.contains("req-500") })
        let page = await responder.respond(
            to: HTTPRequest(method: .get, target: "/boom"), context: .init(requestId: "req-501", logger: .init(sink: app.logs)))
        #expect(page.status == .internalServerError)
        #expect(page.headers["Content-Type"] == "text/html; charset=utf-8")
    }

    @Test("A refused request is mapped first: its security headers, log line and metrics all see the mapped 400, and the route never runs")
    func edgeOrderOnRefusal() async throws {
        let app = try TestApp()
        let ran = Mutex(false)
        var router = Router()
        router.add(.post, "/api/echo") { _, _ in
            ran.withLock { $0 = true }
            return HTTPResponse(status: .ok)
        }
        let metrics = Metrics()
        let responder = AppResponder(routes: router, metrics: metrics, pages: try #require(Self.pages(app)), https: true)
        var request = HTTPRequest(method: .post, target: "/api/echo", body: Array(#"{"a":1,"a":2}"#.utf8))
        request.headers.set("Content-Type", "application/json")
        let response = await responder.respond(to: request, context: .init(requestId: "req-400", logger: Logger(sink: app.logs)))
        #expect(response.status == .badRequest && response.errorCode == "bad_request")
        #expect(!ran.withLock { $0 })
        #expect(response.headers["Strict-Transport-Security"] == "max-age=31536000" && response.headers["X-Content-Type-Options"] == "nosniff")
        let line = try #require(app.logs.lines.last { $0.contains("\"event\":\"request\"") })
        #expect(line.contains("\"status\":400") && line.contains("\"route\":\"/api/echo\""))
        var text = PrometheusText()
        metrics.write(to: &text)
        #expect(text.text.contains(#"route="/api/echo""#) && text.text.contains(#"status="400""#))
    }

    @Test("Every request writes one JSON log line with method, route, status, duration and request id, and never the query")
    func requestLog() async throws {
        let app = try TestApp()
        _ = await app.send(.get, "/static/style.css?token=secret-token-value")
        let line = try #require(app.logs.lines.last { $0.contains("\"event\":\"request\"") })
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["method"] as? String == "GET")
        #expect(object["route"] as? String == "/static/{path*}")
        #expect(object["status"] as? Int == 200)
        #expect(object["duration_ms"] is Double)
        #expect((object["request_id"] as? String)?.hasPrefix("test-") == true)
        #expect(!app.logs.lines.joined().contains("secret-token-value"))
    }

    @Test("A value in an error page is escaped")
    func errorPageEscapes() throws {
        let app = try TestApp()
        let pages = try #require(Self.pages(app))
        let response = pages.errorPage(for: APIError(status: .badRequest, code: "<script>alert(\"x\")</script>", message: "x"))
        #expect(!response.text.contains("<script>alert"))
        #expect(response.text.contains("&lt;script&gt;"))
    }

    static func pages(_ app: TestApp) -> Pages? { app.app.pages }
}
