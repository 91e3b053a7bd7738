import Postgres
import Testing

/// sslmode against a server with TLS on and a certificate for `localhost` from the test CA.
@Suite struct TLSTests {
    /// Whether the server sees this session as encrypted.
    func serverSeesSSL(_ connection: PostgresConnection) throws -> Bool {
        try connection.queryOne("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")?.bool("ssl") == true
    }

    @Test func requireEncryptsWithoutVerifying() async throws {
        let server = try await PostgresTestServer.get()
        // 127.0.0.1 is not in the certificate and the CA is not trusted: require does not care.
        let connection = try PostgresConnection(configuration: server.configuration(sslMode: .require))
        defer { connection.close() }
        #expect(connection.isEncrypted)
        #expect(try serverSeesSSL(connection))
        #expect(connection.authenticationMethod == "scram-sha-256")
    }

    @Test func preferUsesTLSWhenOfferedAndDisableDoesNot() async throws {
        let server = try await PostgresTestServer.get()
        let preferred = try PostgresConnection(configuration: server.configuration(sslMode: .prefer))
        defer { preferred.close() }
        #expect(preferred.isEncrypted)
        let plain = try PostgresConnection(configuration: server.configuration(sslMode: .disable))
        defer { plain.close() }
        #expect(!plain.isEncrypted)
        #expect(try !serverSeesSSL(plain))
    }

    @Test func verifyFullWithTheRightCAAndHostName() async throws {
        let server = try await PostgresTestServer.get()
        let url = "postgres://md5_user:md5%20s3cret@localhost:\(server.port)/\(server.database)?sslmode=verify-full&sslrootcert=\(server.caFile)"
        let connection = try PostgresConnection(configuration: try PostgresConfiguration(url: url))
        defer { connection.close() }
        #expect(connection.isEncrypted)
        #expect(try serverSeesSSL(connection))
        // A large result over TLS arrives in many records.
        let big = try connection.queryOne("SELECT repeat('x', 3000000) AS big")?.string("big")
        #expect(big?.utf8.count == 3_000_000)
    }

    @Test func verifyFullRefusesAWrongHostName() async throws {
        let server = try await PostgresTestServer.get()
        // The certificate names localhost only.
        let configuration = server.configuration(host: "127.0.0.1", sslMode: .verifyFull)
        let error = #expect(throws: PostgresError.self) { try PostgresConnection(configuration: configuration) }
        #expect(error?.kind == .tls)
        #expect(error?.message.contains("certificate") == true, "\(String(describing: error))")
    }

    @Test func verifyFullRefusesAnotherCA() async throws {
        let server = try await PostgresTestServer.get()
        var configuration = server.configuration(host: "localhost", sslMode: .verifyFull)
        configuration.sslRootCertificate = server.otherCAFile
        let error = #expect(throws: PostgresError.self) { try PostgresConnection(configuration: configuration) }
        #expect(error?.kind == .tls)
        // Without sslrootcert the system store is used, which does not hold the test CA either.
        configuration.sslRootCertificate = nil
        let system = #expect(throws: PostgresError.self) { try PostgresConnection(configuration: configuration) }
        #expect(system?.kind == .tls)
    }
}
