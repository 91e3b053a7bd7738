import Foundation
import HTTPCore
import HTTPRouting
import Testing

@testable import Web
@testable import App

@Suite("Operations endpoints")
struct OperationsTests {
    @Test("/healthz answers ok")
    func healthz() async throws {
        let app = try TestApp()
        let response = await app.send(.get, "/healthz")
        #expect(response.status == .ok)
        #expect(response.jsonObject?["status"] as? String == "ok")
    }

    @Test("/readyz is 200 while the database takes writes and 503 once it does not")
    func readyz() async throws {
        let app = try TestApp()
        let ready = await app.send(.get, "/readyz")
        #expect(ready.status == .ok)
        #expect(ready.jsonObject?["status"] as? String == "ready")
        app.app.database.close()
        let notReady = await app.send(.get, "/readyz")
        #expect(notReady.status == .serviceUnavailable)
        #expect(notReady.errorCode == "upstream_unavailable")
        #expect((notReady.jsonObject?["error"] as? [String: Any])?["retryable"] as? Bool == true)
    }

    @Test("/metrics counts requests by route and status, with a latency histogram per route")
    func metrics() async throws {
        let app = try TestApp()
        _ = await app.send(.get, "/healthz")
        _ = await app.send(.get, "/healthz")
        _ = await app.send(.get, "/api/v1/missing")
        let response = await app.send(.get, "/metrics")
        #expect(response.status == .ok)
        #expect(response.headers["Content-Type"]?.hasPrefix("text/plain; version=0.0.4") == true)
        let text = response.text
        #expect(text.contains(#"tollgate_http_requests_total{method="GET",route="/healthz",status="200"} 2"#))
        #expect(text.contains(#"tollgate_http_requests_total{method="GET",route="unmatched",status="404"} 1"#))
        #expect(text.contains(#"tollgate_http_request_duration_seconds_bucket{method="GET",route="/healthz",le="+Inf"} 2"#))
        #expect(text.contains(#"tollgate_http_request_duration_seconds_count{method="GET",route="unmatched"} 1"#))
        #expect(text.contains("tollgate_http_requests_in_flight 1"))
        #expect(text.contains("tollgate_database_errors_total 0"))
        #expect(!text.contains("/api/v1/missing"))
    }

    @Test("/openapi.json lists exactly the routes the router serves")
    func openAPIMatchesRouter() async throws {
        let app = try TestApp()
        let response = await app.send(.get, "/openapi.json")
        #expect(response.status == .ok)
        #expect(response.headers["Content-Type"]?.hasPrefix("application/json") == true)
        let document = try #require(response.jsonObject)
        #expect((document["openapi"] as? String)?.hasPrefix("3.1") == true)
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        var documented = Set<String>()
        for (path, operations) in paths {
            for method in operations.keys where ["get", "post", "put", "patch", "delete"].contains(method) {
                documented.insert("\(method.uppercased()) \(path)")
            }
        }
        let served = Set(
            app.app.responder.router.routes.map { route in
                "\(route.method.rawValue) \(route.pattern.replacingOccurrences(of: "*}", with: "}"))"
            })
        #expect(served.subtracting(documented).sorted() == [], "routes missing from Public/openapi.json")
        #expect(documented.subtracting(served).sorted() == [], "documented routes that do not exist")
    }

    @Test(
        "Static files are served with a content type, and paths out of Public/ are 404",
        arguments: [
            "/static/../Package.swift", "/static/%2e%2e/Package.swift", "/static/..%2fPackage.swift", "/static/style.css/../../Package.swift"
        ])
    func staticEscapes(path: String) async throws {
        let app = try TestApp()
        let css = await app.send(.get, "/static/style.css")
        #expect(css.status == .ok)
        #expect(css.headers["Content-Type"]?.hasPrefix("text/css") == true)
        let escape = await app.send(.get, path)
        #expect(escape.status == .notFound)
        #expect(!escape.text.contains("PackageDescription"))
    }
}
