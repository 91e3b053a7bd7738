import Foundation
import Testing
@testable import HTTPCore

/// Live: a trusted proxy is not a client (API.md, "Limits that protect everyone"). Its
/// connections count only toward the server-wide cap; the per-client cap applies to each
/// forwarded client's requests in flight, so one buyer behind nginx cannot take everyone's share
/// and all buyers together are not held to one client's share.
@Suite struct HTTPServerTrustedProxyTests {
    static let cap = 4
    static let connections = 5 * cap

    /// 127.0.0.1 is the trusted proxy; the client is the last `X-Forwarded-For` entry. (The
    /// application's policy, Web's `ClientAddressResolver`, is checked in WebTests.)
    struct LoopbackProxy: ClientAddressPolicy {
        func isTrustedProxy(_ peer: String) -> Bool { peer == "127.0.0.1" }

        func forwardedClient(peer: String, headers: HTTPHeaders) -> String {
            let entries = headers.values(for: "X-Forwarded-For").joined(separator: ",").split(separator: ",")
            return entries.last.map { $0.trimmingCharacters(in: .whitespaces) } ?? peer
        }
    }

    func configure(_ configuration: inout HTTPServerConfiguration) {
        configuration.maxConnectionsPerClient = Self.cap
        configuration.clientAddressPolicy = LoopbackProxy()
        // Idle admitted connections must not hit the header timeout on a loaded machine.
        configuration.headerReadTimeout = .seconds(120)
    }

    func gated(forwardedFor client: String) -> String {
        "GET /gate HTTP/1.1\r\nHost: h\r\nX-Forwarded-For: \(client)\r\n\r\n"
    }

    @Test func aTrustedProxyHoldsFiveTimesTheCapForDifferentClientsAllServed() async throws {
        let responder = TestResponder()
        try await withServer(configure, responder: responder) { server, port in
            var proxied: [TestClient] = []
            for index in 0..<Self.connections {
                let client = try await TestClient.connect(port: port, from: "127.0.0.1", sending: gated(forwardedFor: "203.0.113.\(index + 1)"))
                proxied.append(client)
            }
            // All 20 requests are inside the responder at once: no connection was turned away.
            #expect(
                await eventually { responder.inFlight.load(ordering: .relaxed) == Self.connections },
                "in flight: \(responder.inFlight.load(ordering: .relaxed))")
            #expect(server.openConnections == Self.connections)
            responder.gateOpen.store(true, ordering: .relaxed)
            var statuses: [Int] = []
            for client in proxied { statuses.append(try await client.readResponse().status) }
            #expect(statuses == Array(repeating: 200, count: Self.connections))
        }
    }

    @Test func anUntrustedAddressGetsOnlyTheCapThe503sAtOnce() async throws {
        try await withServer(configure) { server, port in
            // 127.0.0.2 is not a trusted proxy: its X-Forwarded-For does not matter.
            let admitted = try await openIdleConnections(Self.cap, port: port, from: "127.0.0.2", total: Self.cap, server: server)
            for _ in Self.cap..<Self.connections {
                let extra = try await TestClient.connect(port: port, from: "127.0.0.2")
                try await expectTurnedAway(extra)
            }
            for (index, client) in admitted.enumerated() {
                try await client.send(gated(forwardedFor: "203.0.113.\(index + 1)").replacingOccurrences(of: "/gate", with: "/"))
                let response = try await client.readResponse()
                #expect(response.status == 200)
                #expect(response.header("X-Seen-Remote") == "127.0.0.2")
            }
        }
    }

    @Test func oneForwardedClientOverItsCapGets503WhileOthersThroughTheProxyAreServed() async throws {
        let responder = TestResponder()
        try await withServer(configure, responder: responder) { server, port in
            var held: [TestClient] = []
            for _ in 0..<Self.cap {
                let client = try await TestClient.connect(port: port, from: "127.0.0.1", sending: gated(forwardedFor: "198.51.100.7"))
                held.append(client)
            }
            #expect(await eventually { responder.inFlight.load(ordering: .relaxed) == Self.cap })

            // The same buyer's further requests, each on its own proxy connection: 503, and the
            // proxy's connection stays open for the next request.
            var refused: [TestClient] = []
            for _ in Self.cap..<Self.connections {
                let client = try await TestClient.connect(port: port, from: "127.0.0.1", sending: gated(forwardedFor: "198.51.100.7"))
                let response = try await client.readResponse()
                #expect(response.status == 503)
                #expect(response.body.contains("Too many open connections from your address"), "\(response.body)")
                #expect(response.header("Connection") != "close")
                refused.append(client)
            }
            #expect(server.openConnections == Self.connections)

            // Another buyer through the same proxy, even on a connection that just carried a 503.
            try await refused[0].send("GET / HTTP/1.1\r\nHost: h\r\nX-Forwarded-For: 198.51.100.8\r\n\r\n")
            #expect(try await refused[0].readResponse().status == 200)

            // Once the held requests are answered, the buyer's share is free again.
            responder.gateOpen.store(true, ordering: .relaxed)
            for client in held { #expect(try await client.readResponse().status == 200) }
            try await refused[1].send("GET / HTTP/1.1\r\nHost: h\r\nX-Forwarded-For: 198.51.100.7\r\n\r\n")
            #expect(try await refused[1].readResponse().status == 200)
        }
    }
}
