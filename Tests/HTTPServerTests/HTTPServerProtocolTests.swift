import Logging
import Testing
@testable import HTTPCore
@testable import HTTPRouting

/// Live: keep-alive, pipelining, bodies, HEAD, 100-continue and request ids.
@Suite struct HTTPServerProtocolTests {
    @Test func twoRequestsOnOneKeepAliveConnection() async throws {
        try await withServer { _, port in
            let client = try await TestClient.connect(port: port, sending: "GET /one HTTP/1.1\r\nHost: h\r\n\r\n")
            let first = try await client.readResponse()
            #expect(first.status == 200)
            #expect(first.body == "GET /one ")
            #expect(first.header("Connection") == nil)
            #expect(first.header("Date")?.hasSuffix(" GMT") == true)
            #expect(first.header("Content-Length") == "9")
            #expect(first.header("X-Seen-Remote") == "127.0.0.1")
            try await client.send("GET /two HTTP/1.1\r\nHost: h\r\n\r\n")
            let second = try await client.readResponse()
            #expect(second.body == "GET /two ")
            #expect(await client.staysOpen(milliseconds: 100))
        }
    }

    @Test func http10ClosesByDefault() async throws {
        try await withServer { _, port in
            let (response, closed) = try await exchange("GET /old HTTP/1.0\r\n\r\n", port: port)
            #expect(response.status == 200)
            #expect(response.statusLine.hasPrefix("HTTP/1.1 200"))
            #expect(response.header("Connection") == "close")
            #expect(closed)
        }
    }

    @Test func http10KeepAlive() async throws {
        try await withServer { _, port in
            let client = try await TestClient.connect(port: port, sending: "GET /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            let first = try await client.readResponse()
            #expect(first.header("Connection") == "keep-alive")
            try await client.send("GET /b HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            let second = try await client.readResponse()
            #expect(second.body == "GET /b ")
            #expect(await client.staysOpen(milliseconds: 100))
        }
    }

    @Test func connectionCloseFromClientClosesAfterTheResponse() async throws {
        try await withServer { _, port in
            let (response, closed) = try await exchange("GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n", port: port)
            #expect(response.status == 200)
            #expect(response.header("Connection") == "close")
            #expect(closed)
        }
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
        try await withServer { _, port in
            let client = try await TestClient.connect(
                port: port,
                sending:
                    "GET /slow?ms=150 HTTP/1.1\r\nHost: h\r\n\r\nPOST /2 HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabcGET /3 HTTP/1.1\r\nHost: h\r\n\r\n"
            )
            let first = try await client.readResponse()
            let second = try await client.readResponse()
            let third = try await client.readResponse()
            #expect(first.body == "GET /slow?ms=150 ")
            #expect(second.body == "POST /2 abc")
            #expect(third.body == "GET /3 ")
            #expect(await client.staysOpen(milliseconds: 50))
        }
    }

    /// Each piece is a short read, after which the connection waits for the loop's event instead
    /// of reading again: a missed event would leave the request unread until the header timeout.
    @Test("A request sent in pieces, with pauses, is read piece by piece and answered at once, twice on one connection")
    func aRequestInPiecesIsAnsweredAtOnce() async throws {
        try await withServer { _, port in
            let client = try await TestClient.connect(port: port, sending: "POST /pieces HTTP/1.1\r\n")
            for piece in ["Host: h\r\nContent-", "Length: 6\r\n\r\n", "abc", "def"] {
                try await Task.sleep(for: .milliseconds(60))
                try await client.send(piece)
            }
            let sent = ContinuousClock.now
            let first = try await client.readResponse()
            #expect(first.status == 200 && first.body == "POST /pieces abcdef")
            // A missed event would hold the request until the 120 s header timeout; the bound leaves
            // room for this test's own task to wait for a thread in a parallel run.
            #expect(ContinuousClock.now - sent < .seconds(40), "the last piece waited for a timeout")
            try await Task.sleep(for: .milliseconds(60))
            try await client.send("GET /again HTTP/1.1\r\nHo")
            try await Task.sleep(for: .milliseconds(60))
            try await client.send("st: h\r\n\r\n")
            let again = ContinuousClock.now
            let second = try await client.readResponse()
            #expect(second.status == 200 && second.body == "GET /again ")
            #expect(ContinuousClock.now - again < .seconds(40), "the next request's last piece waited for a timeout")
        }
    }

    @Test func aSlowResponderDoesNotBlockOtherConnections() async throws {
        let responder = TestResponder()
        try await withServer(responder: responder) { _, port in
            let slow = try await TestClient.connect(port: port, sending: "GET /gate HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(await eventually { responder.inFlight.load(ordering: .relaxed) == 1 })
            // While that responder is still waiting, other connections are served.
            for index in 0..<5 {
                let (response, _) = try await exchange("GET /\(index) HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n", port: port)
                #expect(response.body == "GET /\(index) ")
            }
            #expect(responder.inFlight.load(ordering: .relaxed) == 1, "the gated request is still in flight")
            responder.gateOpen.store(true, ordering: .relaxed)
            #expect(try await slow.readResponse().body == "GET /gate ")
        }
    }

    @Test func chunkedBodyIsDecoded() async throws {
        try await withServer { _, port in
            let client = try await TestClient.connect(
                port: port, sending: "POST /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n4;name=v\r\nWiki\r\n")
            try await client.send("5\r\npedia\r\nE\r\n in\r\n\r\nchunks.\r\n0\r\nX-Trailer: t\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 200)
            #expect(response.body == "POST /c Wikipedia in\r\n\r\nchunks.")
            try await client.send("GET /after HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(try await client.readResponse().body == "GET /after ")
        }
    }

    @Test func headGetsHeadersWithoutBody() async throws {
        try await withServer { _, port in
            let client = try await TestClient.connect(port: port, sending: "GET /page HTTP/1.1\r\nHost: h\r\n\r\n")
            let get = try await client.readResponse()
            try await client.send("HEAD /page HTTP/1.1\r\nHost: h\r\n\r\n")
            let head = try await client.readResponse(bodyExpected: false)
            #expect(head.status == 200)
            #expect(head.header("Content-Length") == get.header("Content-Length"))
            // No body bytes may follow: the next response must start right away.
            try await client.send("GET /next HTTP/1.1\r\nHost: h\r\n\r\n")
            let next = try await client.readResponse()
            #expect(next.statusLine == "HTTP/1.1 200 OK")
            #expect(next.body == "GET /next ")
        }
    }

    @Test func expectContinueSends100ThenTheResponse() async throws {
        try await withServer { _, port in
            let client = try await TestClient.connect(
                port: port, sending: "POST /e HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n")
            let interim = try await client.readResponse()
            #expect(interim.statusLine == "HTTP/1.1 100 Continue")
            try await client.send("data")
            let final = try await client.readResponse()
            #expect(final.status == 200)
            #expect(final.body == "POST /e data")
        }
    }

    @Test func requestIdIsEchoedGeneratedOrReplaced() async throws {
        let logs = MemoryLogSink()
        try await withServer(logger: Logger(sink: logs)) { _, port in
            let client = try await TestClient.connect(port: port, sending: "GET / HTTP/1.1\r\nHost: h\r\nX-Request-Id: client.id:42-A_b\r\n\r\n")
            let echoed = try await client.readResponse()
            #expect(echoed.header("X-Request-Id") == "client.id:42-A_b")
            #expect(echoed.header("X-Seen-Request-Id") == "client.id:42-A_b")
            // The request's logger carries its id into each line the responder writes.
            #expect(logs.lines.contains { $0.hasSuffix(#""event":"responding","request_id":"client.id:42-A_b"}"#) })

            try await client.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
            let generated = try await client.readResponse()
            let id = try #require(generated.header("X-Request-Id"))
            #expect(id.count == 16 && id.allSatisfy(\.isHexDigit))
            #expect(generated.header("X-Seen-Request-Id") == id)

            try await client.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(try await client.readResponse().header("X-Request-Id") != id, "ids differ per request")

            try await client.send("GET / HTTP/1.1\r\nHost: h\r\nX-Request-Id: bad id<script>\r\n\r\n")
            let replaced = try await client.readResponse()
            let newId = try #require(replaced.header("X-Request-Id"))
            #expect(newId.count == 16 && newId.allSatisfy(\.isHexDigit))
            #expect(replaced.header("X-Seen-Request-Id") == newId)
        }
    }

    @Test func servesIPv6() async throws {
        var configuration = HTTPServerConfiguration(host: "::1", port: 0)
        configuration.shutdownGracePeriod = .seconds(1)
        let server = HTTPServer(configuration: configuration, responder: TestResponder(), logger: .disabled)
        try server.start()
        let client = try await TestClient.connect(port: server.port, host: "::1", sending: "GET /v6 HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n")
        let response = try await client.readResponse()
        #expect(response.body == "GET /v6 ")
        #expect(response.header("X-Seen-Remote") == "::1")
        await server.shutdown()
    }
}
