import Testing
@testable import HTTPCore
@testable import HTTPRouting

/// Live: one client cannot take every connection, neither by opening many nor by sending
/// requests slowly (API.md, "Limits that protect everyone").
@Suite struct HTTPServerAbuseLimitTests {
    @Test func aClientOverItsConnectionCapGets503WhileOthersAreServed() async throws {
        try await withServer({
            $0.maxConnectionsPerClient = 2
            // Idle admitted connections must not hit the header timeout on a loaded machine.
            $0.headerReadTimeout = .seconds(120)
        }) { server, port in
            let capped = try await openIdleConnections(2, port: port, total: 2, server: server)
            try await expectTurnedAway(try await TestClient.connect(port: port))

            // Another client address is served, up to its own cap.
            var others: [TestClient] = []
            for _ in 0..<2 {
                let other = try await TestClient.connect(port: port, from: "127.0.0.2", sending: "GET / HTTP/1.1\r\nHost: h\r\n\r\n")
                let response = try await other.readResponse()
                #expect(response.status == 200)
                #expect(response.header("X-Seen-Remote") == "127.0.0.2")
                others.append(other)
            }

            // The capped client's admitted connections still work; closing one frees its slot.
            let first = capped[0]
            try await first.send("GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n")
            #expect(try await first.readResponse().status == 200)
            #expect(await eventually { server.openConnections == 3 }, "second and the two of 127.0.0.2")
            let fourth = try await TestClient.connect(port: port, sending: "GET / HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(try await fourth.readResponse().status == 200)
            _ = (capped, others)
        }
    }

    @Test func aTricklingBodyGets408AtTheRequestTimeoutWhileOthersAreServed() async throws {
        // One body byte every 100 ms: each read is far inside the 30 s body read timeout.
        try await trickleGets408(head: "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 40\r\n\r\n", piece: "x", pieces: 40)
    }

    @Test func aTricklingHeadGets408AtTheRequestTimeoutWhileOthersAreServed() async throws {
        // One header line every 100 ms, well inside a generous header read timeout.
        try await trickleGets408(head: "GET / HTTP/1.1\r\nHost: h\r\n", piece: "X-A: b\r\n", pieces: 40, headerTimeout: .seconds(30))
    }

    /// Sends `head`, then `piece` every 100 ms (`pieces` times, ending the head with a blank line
    /// when `piece` is a header); the server must answer 408 and close after about one second,
    /// the request timeout, while other clients get their answers meanwhile.
    private func trickleGets408(head: String, piece: String, pieces: Int, headerTimeout: Duration = .seconds(10)) async throws {
        try await withServer({
            $0.requestTimeout = .seconds(1)
            $0.headerReadTimeout = headerTimeout
        }) { _, port in
            let start = ContinuousClock.now
            let slow = try await TestClient.connect(port: port, sending: head)
            let trickle = Task {
                for _ in 0..<pieces {
                    try await Task.sleep(for: .milliseconds(100))
                    try await slow.send(piece)  // fails once the server has closed: that ends the task
                }
                if piece.hasSuffix("\r\n") { try await slow.send("\r\n") }
            }
            for _ in 0..<3 {
                let (other, _) = try await exchange("GET /other HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n", port: port)
                #expect(other.status == 200)
            }
            let response = try await slow.readResponse()
            let elapsed = ContinuousClock.now - start
            trickle.cancel()
            _ = await trickle.result
            #expect(response.status == 408)
            #expect(response.header("Connection") == "close")
            // The lower bound shows the timeout counts from the first byte. A server that did not
            // time the request out would answer 200 once the trickle ends (4 s), so the status is
            // what proves the timeout; the upper bound only catches a hang, and is wide because the
            // whole suite starts at once on two cores (tests queued 20-80 s behind others were seen).
            #expect(elapsed >= .milliseconds(900) && elapsed < .seconds(150))
        }
    }
}
