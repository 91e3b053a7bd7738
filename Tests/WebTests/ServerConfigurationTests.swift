import Configuration
import HTTPCore
import HTTPRouting
import Testing
@testable import Web
@testable import App

/// The `http.*` limits of the configuration reach the HTTP server.
@Suite struct ServerConfigurationTests {
    @Test func perClientCapAndRequestTimeoutArePassedToTheServer() {
        var config = TollgateConfig()
        config.http.maxConnectionsPerClient = 7
        config.http.requestTimeoutSeconds = 3
        let server = TollgateApp.serverConfiguration(config)
        #expect(server.maxConnectionsPerClient == 7)
        #expect(server.requestTimeout == .seconds(3))
    }

    @Test func trustedProxiesReachTheServerAsTheRateLimitsClientResolver() throws {
        var config = TollgateConfig()
        #expect(TollgateApp.serverConfiguration(config).clientAddressPolicy == nil, "no proxy: every peer is a client")
        config.http.trustedProxies = ["127.0.0.1/32", "10.0.0.0/8"]
        let policy = try #require(TollgateApp.serverConfiguration(config).clientAddressPolicy)
        #expect(policy.isTrustedProxy("127.0.0.1"))
        #expect(policy.isTrustedProxy("10.9.8.7"))
        #expect(!policy.isTrustedProxy("127.0.0.2"))
        var headers = HTTPHeaders()
        headers.add("X-Forwarded-For", "198.51.100.1, 203.0.113.9, 10.1.2.3")
        #expect(policy.forwardedClient(peer: "127.0.0.1", headers: headers) == "203.0.113.9")
        #expect(policy.forwardedClient(peer: "127.0.0.1", headers: HTTPHeaders()) == "127.0.0.1", "no header: the proxy itself")
        var garbage = HTTPHeaders()
        garbage.add("X-Forwarded-For", "garbage-1")
        #expect(policy.forwardedClient(peer: "127.0.0.1", headers: garbage) == "127.0.0.1", "garbage is never a fresh key")
    }
}
