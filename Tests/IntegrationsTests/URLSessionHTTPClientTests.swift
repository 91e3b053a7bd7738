import Foundation
import HTTPCore
import HTTPRouting
import Integrations
import Testing
import TestSupport

@Suite("Outbound HTTP client")
struct URLSessionHTTPClientTests {
    @Test("Sends method, headers and body, and returns status, headers and body of any status")
    func roundTrip() async throws {
        let fake = try FakeHTTPServer { request in
            var response = HTTPResponse.fakeJSON(["seen": String(decoding: request.body, as: UTF8.self)], status: .init(code: 402))
            response.headers.set("Request-Id", "req_123")
            return response
        }
        defer { Task { await fake.stop() } }
        let client = URLSessionHTTPClient(service: "stripe")
        let url = try #require(URL(string: fake.baseURL + "/v1/things?x=1"))
        let response = try await client.send(
            OutboundRequest(
                method: "POST", url: url, headers: [("Authorization", "Bearer sk_test_1"), ("Content-Type", "application/x-www-form-urlencoded")],
                body: Array("a=1&b=2".utf8), timeout: .seconds(60)))
        #expect(response.status == 402)
        #expect(response.headers["request-id"] == "req_123")
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"seen":"a=1&b=2"}"#)
        let received = try #require(fake.requests.first)
        #expect(received.method == .post)
        #expect(received.target == "/v1/things?x=1")
        #expect(received.headers["Authorization"] == "Bearer sk_test_1")
    }

    @Test("A closed port is an unreachable, retryable upstream error")
    func unreachable() async throws {
        // Refused, and no concurrent test can take the port meanwhile (a stopped server's could be).
        let refusing = try RefusingPort()
        defer { withExtendedLifetime(refusing) {} }
        let port = refusing.port
        let client = URLSessionHTTPClient(service: "app_store")
        let url = try #require(URL(string: "http://127.0.0.1:\(port)/inApps/v1/transactions/1"))
        await #expect {
            _ = try await client.send(OutboundRequest(method: "GET", url: url, timeout: .seconds(30)))
        } throws: { error in
            guard let upstream = error as? UpstreamError else { return false }
            return upstream.kind == .unreachable && upstream.retryable && upstream.service == "app_store"
        }
    }

    @Test("A server slower than the timeout is a timed-out upstream error")
    func timeout() async throws {
        let fake = try FakeHTTPServer { _ in
            try? await Task.sleep(for: .seconds(3))
            return HTTPResponse()
        }
        defer { Task { await fake.stop() } }
        let client = URLSessionHTTPClient(service: "play_store")
        let url = try #require(URL(string: fake.baseURL + "/slow"))
        await #expect {
            _ = try await client.send(OutboundRequest(method: "GET", url: url, timeout: .milliseconds(500)))
        } throws: { error in
            (error as? UpstreamError)?.kind == .timedOut
        }
    }
}
