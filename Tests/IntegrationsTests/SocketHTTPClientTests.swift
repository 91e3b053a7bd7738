import Foundation
import HTTPCore
import HTTPRouting
import Integrations
import Testing
import TestSupport

@Suite("Outbound HTTP to an untrusted receiver")
struct SocketHTTPClientTests {
    @Test("A redirect is not followed: the 3xx is the answer, the target never hears of it")
    func noRedirects() async throws {
        let target = try FakeHTTPServer { _ in HTTPResponse.fakeJSON(["reached": true]) }
        defer { Task { await target.stop() } }
        let redirecting = try FakeHTTPServer { _ in
            HTTPResponse(status: HTTPStatus(code: 307), headers: ["Location": target.baseURL + "/stolen"], body: [])
        }
        defer { Task { await redirecting.stop() } }
        let client = SocketHTTPClient(service: "events", maxResponseBytes: 1024)
        let url = try #require(URL(string: redirecting.baseURL + "/hook"))
        let response = try await client.send(OutboundRequest(method: "POST", url: url, body: Array("{}".utf8), timeout: .seconds(10)))
        #expect(response.status == 307)
        #expect(target.requests.isEmpty)
    }

    @Test("Sends method, target, headers and body; answers of any status come back; the connection is reused")
    func roundTrip() async throws {
        let server = try FakeHTTPServer { request in
            HTTPResponse.fakeJSON(
                ["seen": String(decoding: request.body, as: UTF8.self)], status: HTTPStatus(code: request.body.count > 2 ? 500 : 200))
        }
        defer { Task { await server.stop() } }
        let client = SocketHTTPClient(service: "events", maxResponseBytes: 1024)
        let url = try #require(URL(string: server.baseURL + "/hooks/in?x=1"))
        for body in ["{}", "{\"a\":1}", "{}"] {
            let response = try await client.send(
                OutboundRequest(
                    method: "POST", url: url, headers: [("webhook-id", "evt_1"), ("Content-Type", "application/json")], body: Array(body.utf8),
                    timeout: .seconds(10)))
            #expect(response.status == (body.count > 2 ? 500 : 200))
            #expect(String(decoding: response.body, as: UTF8.self) == #"{"seen":"\#(body.replacingOccurrences(of: "\"", with: "\\\""))"}"#)
            #expect(response.headers["content-type"] == "application/json")
        }
        let received = server.requests
        #expect(received.count == 3)
        #expect(received.allSatisfy { $0.target == "/hooks/in?x=1" && $0.headers["webhook-id"] == "evt_1" && $0.method == .post })
    }

    @Test("A closed port is an unreachable, retryable error")
    func unreachable() async throws {
        // Refused, and no concurrent test can take the port meanwhile (a stopped server's could be).
        let refusing = try RefusingPort()
        defer { withExtendedLifetime(refusing) {} }
        let port = refusing.port
        let client = SocketHTTPClient(service: "events", maxResponseBytes: 1024)
        let url = try #require(URL(string: "http://127.0.0.1:\(port)/hook"))
        await #expect {
            _ = try await client.send(OutboundRequest(method: "POST", url: url, body: [], timeout: .seconds(5)))
        } throws: { error in
            (error as? UpstreamError)?.kind == .unreachable && (error as? UpstreamError)?.retryable == true
        }
    }

    @Test("Only the first bytes of a large answer are read")
    func bodyCap() async throws {
        let big = try FakeHTTPServer { _ in
            HTTPResponse(status: .ok, headers: ["Content-Type": "text/plain"], body: Array(repeating: 0x61, count: 4 << 20))
        }
        defer { Task { await big.stop() } }
        let client = SocketHTTPClient(service: "events", maxResponseBytes: 100)
        let url = try #require(URL(string: big.baseURL + "/hook"))
        let response = try await client.send(OutboundRequest(method: "POST", url: url, body: [], timeout: .seconds(10)))
        #expect(response.status == 200)
        #expect(response.body.count == 100)
    }

    @Test("The timeout covers the whole exchange")
    func timeout() async throws {
        let slow = try FakeHTTPServer { _ in
            try? await Task.sleep(for: .seconds(60))
            return HTTPResponse()
        }
        defer { Task { await slow.stop() } }
        let client = SocketHTTPClient(service: "events", maxResponseBytes: 100)
        let url = try #require(URL(string: slow.baseURL + "/hook"))
        let started = ContinuousClock.now
        await #expect {
            _ = try await client.send(OutboundRequest(method: "POST", url: url, body: [], timeout: .milliseconds(300)))
        } throws: { error in
            (error as? UpstreamError)?.kind == .timedOut
        }
        // Less than the minute the server takes: the timeout ended it, not the answer. (A parallel
        // test run has taken 31 s here while a thousand other tests held the blocking threads.)
        #expect(started.duration(to: .now) < .seconds(55))
    }
}
