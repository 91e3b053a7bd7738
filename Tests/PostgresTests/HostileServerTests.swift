import Postgres
import Testing

/// What a broken or hostile server might send, played back by `ScriptedServer`: each is refused
/// with a typed error and nothing hangs.
@Suite struct HostileServerTests {
    func connect(_ server: ScriptedServer, sslMode: SSLMode = .disable) throws -> PostgresConnection {
        var configuration = PostgresConfiguration(
            host: "127.0.0.1", port: server.port, user: "u", password: "secret-pw", database: "d", sslMode: sslMode)
        configuration.connectTimeout = .seconds(5)
        return try PostgresConnection(configuration: configuration)
    }

    @Test func scramPlusOnlyIsRefusedClearly() throws {
        let server = try ScriptedServer(script: saslRequest(["SCRAM-SHA-256-PLUS"]))
        let error = #expect(throws: PostgresError.self) { try connect(server) }
        #expect(error?.kind == .authentication)
        #expect(error?.message.contains("SCRAM-SHA-256-PLUS (channel binding)") == true, "\(String(describing: error))")
    }

    @Test func unsupportedMethodsAreNamed() throws {
        let gss = try ScriptedServer(script: backendMessage("R", int32Bytes(7)))
        let error = #expect(throws: PostgresError.self) { try connect(gss) }
        #expect(error?.kind == .authentication)
        #expect(error?.message.contains("GSSAPI") == true)
        let other = try ScriptedServer(script: saslRequest(["SCRAM-SHA-1"]))
        let sasl = #expect(throws: PostgresError.self) { try connect(other) }
        #expect(sasl?.message.contains("SCRAM-SHA-1") == true)
    }

    @Test func aServerThatSkipsSCRAMsFinalStepIsRefused() throws {
        // It asks for SCRAM, then says "OK" without ever proving it knows the password.
        let server = try ScriptedServer(script: saslRequest(["SCRAM-SHA-256"]) + authenticationOkAndReady)
        let error = #expect(throws: PostgresError.self) { try connect(server) }
        #expect(error?.kind == .authentication)
        #expect(error?.message.contains("without proving") == true)
    }

    @Test func trustFromAFakeServerWorksAndPreferFallsBackToPlaintext() throws {
        let server = try ScriptedServer(sslAnswer: Array("N".utf8), script: authenticationOkAndReady)
        let connection = try connect(server, sslMode: .prefer)
        #expect(!connection.isEncrypted)
        #expect(connection.authenticationMethod == "trust")
        connection.close()
    }

    @Test func requireRefusesAServerWithoutSSL() throws {
        let server = try ScriptedServer(sslAnswer: Array("N".utf8), script: authenticationOkAndReady)
        let error = #expect(throws: PostgresError.self) { try connect(server, sslMode: .require) }
        #expect(error?.kind == .tls)
    }

    @Test func plaintextInjectedAfterTheSSLAnswerFailsTheHandshake() throws {
        // CVE-2021-23222: bytes after 'S' must not be read as the server's first messages.
        let server = try ScriptedServer(sslAnswer: Array("S".utf8) + authenticationOkAndReady, script: [])
        let error = #expect(throws: PostgresError.self) { try connect(server, sslMode: .require) }
        #expect(error?.kind == .tls)
    }

    @Test func malformedMessagesAreProtocolViolations() throws {
        let unknown = try ScriptedServer(script: backendMessage("@", [1, 2, 3]))
        #expect((#expect(throws: PostgresError.self) { try connect(unknown) })?.kind == .protocolViolation)
        let huge = try ScriptedServer(script: [UInt8(ascii: "R"), 0x7F, 0xFF, 0xFF, 0xFF])
        #expect((#expect(throws: PostgresError.self) { try connect(huge) })?.kind == .protocolViolation)
        let short = try ScriptedServer(script: backendMessage("K", [0, 0]))
        #expect((#expect(throws: PostgresError.self) { try connect(short) })?.kind == .protocolViolation)
    }

    @Test func aServerThatGoesSilentTimesOut() throws {
        let server = try ScriptedServer(script: [])
        var configuration = PostgresConfiguration(host: "127.0.0.1", port: server.port, user: "u", sslMode: .disable)
        configuration.connectTimeout = .milliseconds(500)
        let started = ContinuousClock.now
        let error = #expect(throws: PostgresError.self) { try PostgresConnection(configuration: configuration) }
        #expect(error?.kind == .timeout)
        #expect(started.duration(to: .now) < .seconds(3))
    }
}
