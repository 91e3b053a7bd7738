import Testing
@testable import Configuration

/// `http.max_connections_per_client` and `http.request_timeout_seconds` (API.md, "Limits that
/// protect everyone"): defaults, the file, the environment, and refused values.
@Suite("HTTP abuse limits in the configuration")
struct ConfigHTTPLimitsTests {
    @Test("the defaults are 256 connections per client and 60 s per request")
    func defaults() throws {
        let config = try load(json: Fixtures.json())
        #expect(config.http.maxConnectionsPerClient == 256)
        #expect(config.http.requestTimeoutSeconds == 60)
    }

    @Test("both keys are read from the file and from TOLLGATE_HTTP_* variables")
    func fileAndEnvironment() throws {
        let fromFile = try load(json: Fixtures.json(["http": ["max_connections_per_client": 8, "request_timeout_seconds": 5]]))
        #expect(fromFile.http.maxConnectionsPerClient == 8)
        #expect(fromFile.http.requestTimeoutSeconds == 5)
        let fromEnvironment = try load(
            json: Fixtures.json(),
            environment: [
                "TOLLGATE_HTTP_MAX_CONNECTIONS_PER_CLIENT": "16", "TOLLGATE_HTTP_REQUEST_TIMEOUT_SECONDS": "30"
            ])
        #expect(fromEnvironment.http.maxConnectionsPerClient == 16)
        #expect(fromEnvironment.http.requestTimeoutSeconds == 30)
    }

    @Test("zero is refused, naming the key")
    func zeroIsRefused() {
        let found = problems(json: Fixtures.json(["http": ["max_connections_per_client": 0, "request_timeout_seconds": 0]]))
        #expect(Set(found.map(\.keyPath)) == ["http.max_connections_per_client", "http.request_timeout_seconds"])
    }
}
