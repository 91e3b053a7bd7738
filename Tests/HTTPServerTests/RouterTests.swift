import HTTPCore
import HTTPRouting
import Testing

@Suite("Router")
struct RouterTests {
    static func router() -> Router {
        var router = Router()
        let ok = ClosureHandler { _, _ in HTTPResponse() }
        router.add(.get, "/redeem/{code}", ok)
        router.add(.get, "/redeem/help", ok)
        router.add(.post, "/api/v1/codes/{id}/revoke", ok)
        router.add(.get, "/static/{path*}", ok)
        router.add(.post, "/upload", maxBodyBytes: 10, ok)
        router.add(.get, "/", ok)
        return router
    }

    func found(_ method: HTTPMethod, _ path: String) -> (String, [String: String])? {
        if case .found(let route, let parameters) = Self.router().match(method: method, path: path) {
            return (route.pattern, parameters)
        }
        return nil
    }

    @Test("Path parameters are extracted and percent-decoded")
    func parameters() {
        #expect(found(.get, "/redeem/AB12-CD34")?.1 == ["code": "AB12-CD34"])
        #expect(found(.get, "/redeem/AB%2012")?.1 == ["code": "AB 12"])
        #expect(found(.post, "/api/v1/codes/c_1/revoke")?.1 == ["id": "c_1"])
    }

    @Test("Literal routes win over parameter routes")
    func literalWins() {
        #expect(found(.get, "/redeem/help")?.0 == "/redeem/help")
    }

    @Test("A rest parameter takes the remaining path undecoded")
    func rest() {
        #expect(found(.get, "/static/css/site.css")?.1 == ["path": "css/site.css"])
        #expect(found(.get, "/static/%2e%2e/x")?.1 == ["path": "%2e%2e/x"])
    }

    @Test(
        "Unknown paths, empty parameters and extra segments are not found",
        arguments: ["/redeem/", "/redeem", "/redeem/a/b", "/nope", "/api/v1/codes/x"])
    func notFound(path: String) {
        guard case .notFound = Self.router().match(method: .get, path: path) else {
            Issue.record("\(path) matched")
            return
        }
    }

    @Test("A known path with another method lists the allowed methods")
    func methodNotAllowed() {
        guard case .methodNotAllowed(let allowed) = Self.router().match(method: .post, path: "/redeem/X") else {
            Issue.record("expected 405")
            return
        }
        #expect(allowed == [.get, .head])
    }

    @Test("HEAD falls back to GET and the per-route body limit is kept")
    func headAndLimits() {
        #expect(found(.head, "/")?.0 == "/")
        if case .found(let route, _) = Self.router().match(method: .post, path: "/upload") {
            #expect(route.maxBodyBytes == 10)
        } else {
            Issue.record("upload not found")
        }
    }

    @Test("Form and query decoding follows the urlencoded rules")
    func formDecoding() {
        let items = FormURLEncoding.decode("a=1&b=x+y&c=%E2%9C%93&d&e=%zz")
        #expect(items.map(\.name) == ["a", "b", "c", "d", "e"])
        #expect(items.map(\.value) == ["1", "x y", "✓", "", "%zz"])
        #expect(FormURLEncoding.encode("a b&c/✓") == "a%20b%26c%2F%E2%9C%93")
        let request = HTTPRequest(method: .get, target: "/x?session_id=cs_1&plan=monthly")
        #expect(request.path == "/x")
        #expect(request.queryParameter("session_id") == "cs_1")
    }

    @Test(
        "The target splits at its first ? byte into path and query",
        arguments: [
            ("/", "/", nil),
            ("/?", "/", ""),
            ("/a?b?c", "/a", "b?c"),
            ("/caf\u{E9}?x=\u{E9}", "/caf\u{E9}", "x=\u{E9}"),
            // A combining mark after ? makes one Character "?\u{301}", but the byte still splits.
            ("/a?\u{301}x=1", "/a", "\u{301}x=1"),
            ("?only", "", "only")
        ] as [(String, String, String?)])
    func targetSplit(target: String, path: String, query: String?) {
        let request = HTTPRequest(method: .get, target: target)
        #expect(request.path == path)
        #expect(request.query == query)
    }

    @Test("Header lookup ignores ASCII case only")
    func headers() {
        var headers: HTTPHeaders = ["Content-Type": "text/plain", "X-A": "1"]
        headers.add("x-a", "2")
        #expect(headers["content-type"] == "text/plain")
        #expect(headers.values(for: "X-a") == ["1", "2"])
        #expect(headers["Content-Typf"] == nil)
        #expect(!HTTPHeaders.equalsIgnoringCase("a-b", "a\rb"))
        headers.set("X-A", "3")
        #expect(headers.values(for: "x-a") == ["3"])
    }

    @Test("set: one field is replaced where it stands, several become one at the end, a missing one is added")
    func setKeepsOrder() {
        var headers: HTTPHeaders = ["Content-Type": "text/html", "Cache-Control": "no-store", "X-Frame-Options": "DENY"]
        headers.set("cache-control", "max-age=60")
        #expect(headers.fields.map(\.name) == ["Content-Type", "cache-control", "X-Frame-Options"])
        #expect(headers.fields.map(\.value) == ["text/html", "max-age=60", "DENY"])
        headers.set("X-Frame-Options", "DENY")
        #expect(headers.fields.map(\.name) == ["Content-Type", "cache-control", "X-Frame-Options"])
        headers.add("Vary", "A")
        headers.add("Content-Type", "text/plain")
        headers.set("content-type", "application/json")
        #expect(headers.fields.map(\.name) == ["cache-control", "X-Frame-Options", "Vary", "content-type"])
        #expect(headers["Content-Type"] == "application/json")
        headers.set("Referrer-Policy", "no-referrer")
        #expect(headers.fields.last?.name == "Referrer-Policy" && headers.count == 5)
    }

    @Test("A chain runs its middleware first one outermost on the way in, and in reverse on the way out")
    func chainOrder() async throws {
        let chain = MiddlewareChain([Tracing(name: "first"), Tracing(name: "second"), Tracing(name: "third")]) { request, _ in
            HTTPResponse(status: .ok, headers: HTTPHeaders(request.headers.values(for: "X-In").map { (name: "X-Seen", value: $0) }))
        }
        let response = try await chain.handle(HTTPRequest(method: .get, target: "/"), context: RequestContext(requestId: "r", logger: .disabled))
        #expect(response.headers.values(for: "X-Seen") == ["first", "second", "third"])
        #expect(response.headers.values(for: "X-Out") == ["third", "second", "first"])
    }

    /// Appends its name to a header on the way in (the request) and on the way out (the response).
    struct Tracing: Middleware {
        let name: String
        func handle(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
            var request = request
            request.headers.add("X-In", name)
            var response = try await next(request, context)
            response.headers.add("X-Out", name)
            return response
        }
    }
}
