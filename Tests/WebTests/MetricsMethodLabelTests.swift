import HTTPCore
import Testing

@testable import Web

/// Issue 40, finding 3: made-up HTTP methods must not grow `/metrics` without bound.
@Suite("/metrics: method labels are bounded")
struct MetricsMethodLabelTests {
    @Test("Made-up methods are counted as `other`; the known ones keep their names")
    func madeUpMethodsAreOther() async throws {
        let app = try TestApp()
        for index in 0..<40 {
            _ = await app.send(HTTPMethod(rawValue: "X\(index)Y"), "/healthz")
        }
        _ = await app.send(.get, "/healthz")
        let response = await app.send(.get, "/metrics")
        let metrics = try PrometheusExposition(response.text)
        let methods = Set(metrics.samples.filter { $0.name == "tollgate_http_requests_total" }.compactMap { $0.labels["method"] })
        #expect(methods.isSubset(of: Metrics.knownMethods.union(["other"])), "method labels: \(methods.sorted())")
        #expect(metrics.sum("tollgate_http_requests_total", ["method": "other"]) == 40)
        #expect(metrics.sum("tollgate_http_requests_total", ["method": "GET", "route": "/healthz"]) >= 1)
        let series = metrics.samples.filter { $0.name.hasPrefix("tollgate_http_request") }.count
        #expect(series < 200, "40 made-up methods added \(series) series")
    }

    @Test("The label rule: RFC 9110 names as sent, anything else `other`")
    func labelRule() {
        #expect(Metrics.methodLabel("DELETE") == "DELETE")
        #expect(Metrics.methodLabel("get") == "other")
        #expect(Metrics.methodLabel("PROPFIND") == "other")
    }
}
