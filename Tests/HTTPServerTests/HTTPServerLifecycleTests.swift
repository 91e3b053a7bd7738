import Glibc
import Logging
import Synchronization
import Testing
@testable import HTTPCore
@testable import HTTPRouting

/// Live: timeouts, the connection cap, disconnects, bind errors and graceful shutdown.
@Suite struct HTTPServerLifecycleTests {
    @Test func slowHeadersGet408WhileOthersAreServed() async throws {
        try await withServer({ $0.headerReadTimeout = .milliseconds(1200) }) { _, port in
            // Before the connect: the header timeout runs from the accept.
            let start = ContinuousClock.now
            // The start of a head, then nothing more, as a slowloris would. Sent in one write: byte
            // by byte, a loaded machine could take longer than the timeout between them, and the
            // server, rightly done with the connection, would make a later send fail (EPIPE).
            // Heads arriving in pieces are covered at every split point by the parser tests.
            let slow = try await TestClient.connect(port: port, sending: "GET ")
            // Meanwhile other clients are served promptly.
            for _ in 0..<3 {
                let (other, _) = try await exchange("GET /other HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n", port: port)
                #expect(other.status == 200)
            }
            let response = try await slow.readResponse()
            let elapsed = ContinuousClock.now - start
            #expect(response.status == 408)
            #expect(response.header("Connection") == "close")
            #expect(await slow.isClosedWithoutData())
            // The upper bound only catches a hang: the whole suite shares two cores with a browser test.
            #expect(elapsed >= .milliseconds(1100) && elapsed < .seconds(60))
        }
    }

    @Test func slowBodyGets408() async throws {
        try await withServer({ $0.bodyReadTimeout = .milliseconds(300) }) { _, port in
            let client = try await TestClient.connect(port: port, sending: "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\nabc")
            let response = try await client.readResponse()
            #expect(response.status == 408)
            #expect(await client.isClosedWithoutData())
        }
    }

    @Test func idleKeepAliveIsClosedSilently() async throws {
        try await withServer({ $0.keepAliveIdleTimeout = .milliseconds(300) }) { server, port in
            // Measured from before the request: the close must come at least the idle timeout
            // after the response, however late this task gets to read it.
            let start = ContinuousClock.now
            let client = try await TestClient.connect(port: port, sending: "GET / HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(try await client.readResponse().status == 200)
            #expect(await client.isClosedWithoutData(), "closed with no 408 or other bytes")
            #expect(ContinuousClock.now - start >= .milliseconds(250))
            #expect(await eventually { server.openConnections == 0 })
        }
    }

    @Test func connectionsOverTheCapGet503() async throws {
        try await withServer({
            $0.maxConnections = 2
            // Idle admitted connections must not hit the header timeout on a loaded machine.
            $0.headerReadTimeout = .seconds(120)
        }) { server, port in
            let admitted = try await openIdleConnections(2, port: port, total: 2, server: server)
            try await expectTurnedAway(try await TestClient.connect(port: port))
            // The admitted ones still work.
            let first = admitted[0]
            try await first.send("GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n")
            #expect(try await first.readResponse().status == 200)
            #expect(await eventually { server.openConnections == 1 })
            let fourth = try await TestClient.connect(port: port, sending: "GET / HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(try await fourth.readResponse().status == 200)
            _ = admitted
        }
    }

    @Test func halfSentRequestAndDisconnectLeaksNothing() async throws {
        // The body timeout is far away, so only noticing the peer's close can free the connections.
        try await withServer({ $0.bodyReadTimeout = .seconds(600) }) { server, port in
            for _ in 0..<5 {
                let client = try await TestClient.connect(port: port, sending: "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 100\r\n\r\npartial")
                withExtendedLifetime(client) {}
            }
            // The clients are released (closed) at the end of each iteration.
            #expect(await eventually { server.openConnections == 0 })
            let (response, _) = try await exchange("GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n", port: port)
            #expect(response.status == 200)
        }
    }

    @Test func bindFailureIsReportedWithStrerror() async throws {
        try await withServer { _, port in
            let second = HTTPServer(
                configuration: HTTPServerConfiguration(host: "127.0.0.1", port: port), responder: TestResponder(), logger: .disabled
            )
            do {
                try second.start()
                Issue.record("binding a used port must fail")
            } catch let error as HTTPServerError {
                #expect(error.description == "cannot bind 127.0.0.1:\(port): Address already in use")
            }
            await second.shutdown()
        }
    }

    @Test func gracefulShutdownLetsInFlightRequestsFinish() async throws {
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.shutdownGracePeriod = .seconds(60)
        let responder = TestResponder()
        let server = HTTPServer(configuration: configuration, responder: responder, logger: .disabled)
        try server.start()
        let port = server.port

        let idle = try await TestClient.connect(port: port, sending: "GET / HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(try await idle.readResponse().status == 200)

        // Held at the gate until shutdown has begun: a fixed sleep could end before a loaded
        // machine ran the shutdown task, and the response would rightly not say `close`.
        let busy = try await TestClient.connect(port: port, sending: "GET /gate HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(await eventually { responder.inFlight.load(ordering: .relaxed) == 1 })

        let start = ContinuousClock.now
        async let stopped: Void = server.shutdown()
        // The idle keep-alive connection is closed without a response.
        #expect(await idle.isClosedWithoutData())
        // New connections are refused once the listener is closed.
        var refused = false
        for _ in 0..<100 where !refused {
            do {
                _ = try await TestClient.connect(port: port)
                try await Task.sleep(for: .milliseconds(20))
            } catch {
                refused = true
            }
        }
        #expect(refused)
        // The in-flight request completes, marked as the last on its connection.
        responder.gateOpen.store(true, ordering: .relaxed)
        let response = try await busy.readResponse()
        #expect(response.status == 200)
        #expect(response.body == "GET /gate ")
        #expect(response.header("Connection") == "close")
        await stopped
        await server.waitUntilStopped()
        // Well before the grace period: shutdown waited for the request, not for the clock.
        #expect(ContinuousClock.now - start < .seconds(60))
        #expect(server.openConnections == 0)
        await server.shutdown()  // idempotent
    }

    @Test func shutdownForcesStuckConnectionsAfterTheGracePeriod() async throws {
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.shutdownGracePeriod = .milliseconds(300)
        // Only the shutdown may end the half-sent request: on a loaded machine the default 10 s
        // head timeout could pass before shutdown starts, and its 408 is not what this checks.
        configuration.headerReadTimeout = .seconds(600)
        configuration.requestTimeout = .seconds(600)
        let server = HTTPServer(configuration: configuration, responder: TestResponder(), logger: .disabled)
        try server.start()
        // A half-sent head is not idle, so draining waits for it until the grace period ends.
        let partial = try await TestClient.connect(port: server.port, sending: "GET / HTTP/1.1\r\nHo")
        #expect(await eventually { server.openConnections == 1 })
        let start = ContinuousClock.now
        await server.shutdown()
        let elapsed = ContinuousClock.now - start
        #expect(elapsed >= .milliseconds(250) && elapsed < .seconds(60))
        #expect(await partial.isClosedWithoutData())
    }

    /// A service group stops the next service once the server's `run()` returns; a worker's
    /// "stopped" line must then come after the server's. (It once came before now and then: the
    /// server let `run()` return and only then wrote its line.)
    @Test func runReturnsOnlyAfterTheStoppedLineIsWritten() async throws {
        let sink = SlowStopLineSink()
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0), responder: TestResponder(),
            logger: Logger(sink: sink))
        try server.start()
        let running = Task { try await server.run() }
        running.cancel()
        try await running.value
        #expect(sink.lines.contains { $0.contains("\"http_server_stopped\"") }, "run() returned before the line: \(sink.lines)")
    }
}

/// Takes its time over the server's "stopped" line, as a blocked standard error would, so a
/// caller that returned before the line was written finds it missing.
private final class SlowStopLineSink: LogSink {
    private let storage = Mutex<[String]>([])

    func write(_ line: String) {
        if line.contains("\"http_server_stopped\"") { usleep(300_000) }
        storage.withLock { $0.append(line) }
    }

    var lines: [String] { storage.withLock { $0 } }
}
