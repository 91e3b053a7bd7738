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
}
