import Foundation
import Glibc
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

    @Test("The timeout covers the whole exchange: an answer trickling in a byte every 50 ms is cut off at the deadline")
    func timeout() async throws {
        let listener = try LoopbackListener.tcp()
        defer { listener.close() }
        // The peer, on a thread of its own, promises 1,000 bytes and sends one every 50 ms: each
        // read finds a byte long before 300 ms, so only a deadline over the whole exchange ends it
        // (a timeout per read would wait the 50 s out and answer 200). It stops when the client
        // hangs up. Nothing here is a wall-clock bound: a busy test process may resume late.
        DispatchQueue(label: "trickling-peer").async {
            guard let fd = try? listener.accept() else { return }
            defer { closeRaw(fd) }
            sendRaw(fd, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\n")
            for _ in 0..<1000 {
                usleep(50_000)
                guard send(fd, "a", 1, Int32(MSG_NOSIGNAL)) == 1 else { return }
            }
        }
        let client = SocketHTTPClient(service: "events", maxResponseBytes: 4096)
        let url = try #require(URL(string: "http://127.0.0.1:\(listener.port)/hook"))
        await #expect {
            _ = try await client.send(OutboundRequest(method: "POST", url: url, body: [], timeout: .milliseconds(300)))
        } throws: { error in
            (error as? UpstreamError)?.kind == .timedOut
        }
    }
}
