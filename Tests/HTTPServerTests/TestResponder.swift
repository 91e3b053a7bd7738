import HTTPCore
import HTTPRouting
import Logging
import Synchronization
import Testing

/// The application side of live tests. Paths:
/// - `/slow?ms=N` sleeps N ms (without blocking a thread) before answering;
/// - `/gate` waits until the test opens `gateOpen` (at most 120 s: a test that fails to open it
///   still ends; a bound near the time a busy machine takes to connect the test's clients would
///   open it for the test);
/// - `/small` accepts bodies of at most 10 bytes (per-route limit);
/// - anything else answers `METHOD target body` and reports what the server put in the context.
final class TestResponder: HTTPResponder {
    /// Requests currently inside `respond`.
    let inFlight = Atomic<Int>(0)
    /// `/gate` requests wait (up to 120 s) until this is true.
    let gateOpen = Atomic<Bool>(false)

    func plan(method: HTTPMethod, path: String) -> RoutePlan {
        RoutePlan(maxBodyBytes: limit(path))
    }

    private func limit(_ path: String) -> Int? {
        path == "/small" ? 10 : nil
    }

    func respond(to request: HTTPRequest, plan: RoutePlan, info context: RequestInfo) async -> HTTPResponse {
        inFlight.add(1, ordering: .relaxed)
        defer { inFlight.subtract(1, ordering: .relaxed) }
        if request.path == "/slow" {
            let milliseconds = Int(request.queryParameter("ms") ?? "") ?? 500
            try? await Task.sleep(for: .milliseconds(milliseconds))
        }
        if request.path == "/gate" {
            let deadline = ContinuousClock.now + .seconds(120)
            while !gateOpen.load(ordering: .relaxed) && ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
        var headers = HTTPHeaders()
        headers.add("X-Seen-Request-Id", context.requestId)
        headers.add("X-Seen-Max-Body", String(context.maxBodyBytes))
        headers.add("X-Seen-Remote", context.remoteAddress ?? "none")
        // Through the request's logger, so a test can see which fields its lines carry.
        context.logger.info("responding")
        // HEAD is answered like GET (as the Router does), so its Content-Length matches.
        let method = request.method == .head ? HTTPMethod.get : request.method
        let body = "\(method) \(request.target) \(String(decoding: request.body, as: UTF8.self))"
        return HTTPResponse(status: .ok, contentType: "text/plain", body: body, headers: headers)
    }

    func protocolErrorResponse(status: HTTPStatus, message: String, info context: RequestInfo) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "text/plain", body: "rejected: \(message)")
    }
}

/// Starts a server on 127.0.0.1 port 0 (a 2 s grace period, a 120 s header timeout) with
/// `configure` applied, runs `body`, shuts down.
func withServer(
    _ configure: (inout HTTPServerConfiguration) -> Void = { _ in },
    responder: TestResponder = TestResponder(),
    logger: Logger = .disabled,
    _ body: (HTTPServer, Int) async throws -> Void
) async throws {
    var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
    configuration.shutdownGracePeriod = .seconds(2)
    // The header timeout runs from the accept, on a loop that is seldom busy, while this test's
    // task may wait seconds for the cooperative pool before it sends: tests of that timeout set theirs.
    configuration.headerReadTimeout = .seconds(120)
    configure(&configuration)
    let server = HTTPServer(configuration: configuration, responder: responder, logger: logger)
    try server.start()
    do {
        try await body(server, server.port)
    } catch {
        await server.shutdown()
        throw error
    }
    await server.shutdown()
}

/// Polls `condition` every 10 ms until it holds, for up to `seconds`. The bound only catches a hang
/// or a leak, so it is generous: in a parallel run of 1,300 tests on two cores a server's connection
/// tasks can wait their turn for tens of seconds (CI once saw 30 s pass before five closed sockets
/// were noticed).
func eventually(seconds: Double = 90, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

/// Sends `raw` on a fresh connection and returns the response and whether the server then closed.
func exchange(_ raw: String, port: Int) async throws -> (response: TestClient.Response, closed: Bool) {
    let client = try await TestClient.connect(port: port, sending: raw)
    let response = try await client.readResponse()
    return (response, await client.isClosedWithoutData())
}

/// Opens `count` idle connections (from `source` when given) and waits until the server holds
/// `total` connections in all.
func openIdleConnections(_ count: Int, port: Int, from source: String? = nil, total: Int, server: HTTPServer) async throws -> [TestClient] {
    var clients: [TestClient] = []
    for _ in 0..<count { clients.append(try await TestClient.connect(port: port, from: source)) }
    #expect(await eventually { server.openConnections == total })
    return clients
}

/// Expects the server to turn `client` away at once: 503, `Connection: close`, then a close.
func expectTurnedAway(_ client: TestClient, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    try #require(!(await client.staysOpen(milliseconds: 10_000)), "answered at once", sourceLocation: sourceLocation)
    let rejected = try await client.readResponse()
    #expect(rejected.status == 503, sourceLocation: sourceLocation)
    #expect(rejected.header("Connection") == "close", sourceLocation: sourceLocation)
    #expect(await client.isClosedWithoutData(), sourceLocation: sourceLocation)
}
