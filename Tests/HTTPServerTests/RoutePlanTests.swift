import HTTPCore
import Synchronization
import Testing

/// The core asks the responder for a plan once per request (at the head) and hands that plan
/// back with the full request: an application router is matched once.
private final class PlanCountingResponder: HTTPResponder {
    let plans = Atomic<Int>(0)

    func plan(method: HTTPMethod, path: String) -> RoutePlan {
        plans.wrappingAdd(1, ordering: .relaxed)
        return RoutePlan(maxBodyBytes: 64, route: path == "/a" ? 1 : 2, parameters: ["path": path])
    }

    func respond(to request: HTTPRequest, plan: RoutePlan, info: RequestInfo) async -> HTTPResponse {
        HTTPResponse(
            status: .ok, contentType: "text/plain", body: "route \(plan.route ?? 0) \(plan.parameters["path"] ?? "") max \(info.maxBodyBytes)")
    }
}

@Suite("Route plans")
struct RoutePlanTests {
    @Test("One plan per request, handed back with the request; its body limit is applied")
    func onePlanPerRequest() async throws {
        let responder = PlanCountingResponder()
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.shutdownGracePeriod = .seconds(2)
        let server = HTTPServer(configuration: configuration, responder: responder, logger: .disabled)
        try server.start()
        defer { Task { await server.shutdown() } }
        let first = try await exchange("GET /a HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", port: server.port)
        #expect(first.response.body.contains("route 1 /a max 64"))
        let second = try await exchange("POST /b HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc", port: server.port)
        #expect(second.response.body.contains("route 2 /b max 64"))
        let tooLarge = try await exchange(
            "POST /b HTTP/1.1\r\nHost: x\r\nContent-Length: 65\r\nConnection: close\r\n\r\n" + String(repeating: "x", count: 65), port: server.port)
        #expect(tooLarge.response.status == 413)
        #expect(responder.plans.load(ordering: .relaxed) == 3)
    }
}
