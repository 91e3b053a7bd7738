import App
import Configuration
import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import HTTPCore
import HTTPRouting
import Testing

@testable import Web

/// Behind a trusted proxy only a syntactically valid IP address is taken from
/// `X-Forwarded-For`; anything else leaves the proxy itself as the client, so rotating
/// garbage cannot give every request a fresh rate-limit key.
@Suite("X-Forwarded-For from trusted proxies")
struct ForwardedForTests {
    let resolver = ClientAddressResolver(trustedProxies: [CIDR("127.0.0.1/32")!, CIDR("10.0.0.0/8")!])

    func client(_ forwarded: String?, peer: String = "127.0.0.1") -> String {
        var headers = HTTPHeaders()
        if let forwarded { headers.add("X-Forwarded-For", forwarded) }
        let request = HTTPRequest(method: .get, target: "/", headers: headers)
        return resolver.address(for: request, context: RequestContext(requestId: "r", logger: .disabled, remoteAddress: peer))
    }

    @Test(
        "Valid addresses are taken, right to left past trusted proxies, in canonical form",
        arguments: [
            ("203.0.113.9", "203.0.113.9"),
            ("198.51.100.1, 203.0.113.9", "203.0.113.9"),
            ("203.0.113.9, 10.1.2.3", "203.0.113.9"),
            ("garbage, 203.0.113.9", "203.0.113.9"),
            ("2001:DB8:0:0::1", "2001:db8::1"),
            ("2001:db8:0000:0000:0000:0000:0000:0001", "2001:db8::1"),
            ("10.0.0.1, 10.0.0.2", "10.0.0.1")
        ])
    func valid(forwarded: String, expected: String) {
        #expect(client(forwarded) == expected)
    }

    @Test(
        "Anything but an IP address leaves the proxy as the client",
        arguments: [
            "garbage-1", "203.0.113.9, garbage", "unknown", "203.0.113.9:443", "[2001:db8::1]", "2001:db8::1%eth0",
            "01.2.3.4", "1.2.3", "1.2.3.4.5", "256.1.1.1", "example.com", " , ", "203.0.113.9\u{0}", "_hidden", "0x7f.1.1.1"
        ])
    func garbage(forwarded: String) {
        #expect(client(forwarded) == "127.0.0.1", "\(forwarded.debugDescription)")
    }

    @Test(
        "The server's resolution for a trusted proxy (its per-client cap) gives the client the rate limits give",
        arguments: [
            [], ["203.0.113.9"], [" 203.0.113.9 "], ["198.51.100.1, 203.0.113.9"], ["198.51.100.1", "203.0.113.9, 10.1.2.3"],
            ["garbage"], ["203.0.113.9", "garbage"], [""], ["", "203.0.113.9"], ["10.0.0.1, 10.0.0.2"], ["2001:DB8:0:0::1"]
        ])
    func serverAgreesWithTheMiddleware(fields: [String]) {
        var headers = HTTPHeaders()
        for value in fields { headers.add("x-forwarded-for", value) }
        let request = HTTPRequest(method: .get, target: "/", headers: headers)
        for peer in ["127.0.0.1", "10.9.8.7"] {
            let middleware = resolver.address(for: request, context: RequestContext(requestId: "r", logger: .disabled, remoteAddress: peer))
            #expect(resolver.forwardedClient(peer: peer, headers: headers) == middleware, "\(fields) from \(peer)")
        }
    }

    @Test("Several X-Forwarded-For fields are read as one list, right to left")
    func severalFields() {
        var headers = HTTPHeaders()
        headers.add("X-Forwarded-For", "198.51.100.1")
        headers.add("X-Forwarded-For", "203.0.113.9, 10.1.2.3")
        let request = HTTPRequest(method: .get, target: "/", headers: headers)
        let context = RequestContext(requestId: "r", logger: .disabled, remoteAddress: "127.0.0.1")
        #expect(resolver.address(for: request, context: context) == "203.0.113.9")
    }

    @Test("An untrusted peer's header is ignored")
    func untrustedPeer() {
        #expect(client("203.0.113.9", peer: "198.51.100.7") == "198.51.100.7")
    }

    @Test("Rotating garbage values through a trusted proxy hits 429 on redemption failures")
    func rotatingGarbageIsRateLimited() async throws {
        let app = try TestApp(extra: ["api_keys": ["public": ["pk_test"]], "http": ["trusted_proxies": ["127.0.0.1/32"]]])
        var statuses: [Int] = []
        for attempt in 0..<(10 + 2) {
            let response = await app.send(
                .post, "/api/v1/redeem",
                headers: ["X-Api-Key": "pk_test", "Content-Type": "application/json", "X-Forwarded-For": "garbage-\(attempt)"],
                bytes: Array(#"{"code":"AAAA-BBBB-CCCC-DDD\#(attempt % 10)","app_user_id":"u-1"}"#.utf8), remoteAddress: "127.0.0.1"
            )
            statuses.append(response.status.code)
        }
        #expect(statuses.prefix(10).allSatisfy { $0 == 200 }, "\(statuses)")
        #expect(statuses.suffix(2) == [429, 429], "\(statuses)")
    }

    @Test("Over a socket, the client the server resolved for its per-client cap is the one whose budget a redemption spends")
    func serverResolvedClientIsTheRateLimitKey() async throws {
        let test = try TestApp(extra: ["api_keys": ["public": ["pk_test"]], "http": ["trusted_proxies": ["127.0.0.1/32"]]])
        try test.app.start()
        let url = try #require(URL(string: "http://127.0.0.1:\(test.app.server.port)/api/v1/redeem"))
        func redeem(from client: String, attempt: Int) async throws -> Int {
            var request = URLRequest(url: url)
            // Not URLSession's 60 s: on the PostgreSQL run, suites waiting their turn to migrate
            // block threads of the shared pool for a minute or more, and this server waits with them.
            request.timeoutInterval = 300
            request.httpMethod = "POST"
            request.setValue("pk_test", forHTTPHeaderField: "X-Api-Key")
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.setValue(client, forHTTPHeaderField: "X-Forwarded-For")
            request.httpBody = Data(#"{"code":"AAAA-BBBB-CCCC-DDD\#(attempt % 10)","app_user_id":"u-1"}"#.utf8)
            let (_, response) = try await URLSession.shared.data(for: request)
            return (response as? HTTPURLResponse)?.statusCode ?? 0
        }
        var first: [Int] = []
        for attempt in 0..<11 { first.append(try await redeem(from: "203.0.113.1", attempt: attempt)) }
        let other = try await redeem(from: "203.0.113.2", attempt: 0)
        await test.app.shutdown()
        #expect(first.prefix(10).allSatisfy { $0 == 200 } && first.last == 429, "\(first)")
        #expect(other == 200, "another client behind the same proxy has a budget of its own")
    }
}
