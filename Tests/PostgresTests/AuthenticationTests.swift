import Postgres
import Testing
import TestSupport

/// Each authentication method pg_hba.conf can ask for, against the real server.
@Suite struct AuthenticationTests {
    @Test func scramSucceedsWithAPasswordFullOfURLReservedCharacters() async throws {
        let server = try await PostgresTestServer.get()
        let connection = try server.connect(.scram)
        defer { connection.close() }
        #expect(connection.authenticationMethod == "scram-sha-256")
        #expect(try connection.queryOne("SELECT current_user AS who")?.string("who") == "tollgate")
        #expect(connection.processID != 0)
        #expect(connection.serverParameters["server_encoding"] == "UTF8")
        #expect(connection.serverParameters["client_encoding"] == "UTF8")
        #expect(connection.serverParameters["application_name"] == "tollgate-tests")
    }

    @Test func scramThroughAPercentEncodedURL() async throws {
        let server = try await PostgresTestServer.get()
        // "scr@m p:ss/w?rd#1"
        let url = "postgres://tollgate:scr%40m%20p%3Ass%2Fw%3Frd%231@127.0.0.1:\(server.port)/\(server.database)?sslmode=disable"
        let connection = try PostgresConnection(configuration: try PostgresConfiguration(url: url))
        defer { connection.close() }
        #expect(try connection.queryOne("SELECT 1 AS one")?.int("one") == 1)
    }

    @Test func scramWithANonASCIIPassword() async throws {
        let server = try await PostgresTestServer.get()
        let connection = try server.connect(.unicode)
        defer { connection.close() }
        #expect(connection.authenticationMethod == "scram-sha-256")
    }

    @Test func wrongPasswordIsATypedErrorWithSQLState28P01AndNoPassword() async throws {
        let server = try await PostgresTestServer.get()
        for role in [PostgresTestServer.Role.scram, .md5, .cleartext] {
            var configuration = server.configuration(role)
            configuration.password = "wrong-Pa55word"
            let error = #expect(throws: PostgresError.self) { try PostgresConnection(configuration: configuration) }
            #expect(error?.kind == .authentication, "\(role)")
            #expect(error?.sqlState == "28P01", "\(role)")
            #expect(error?.isInvalidPassword == true)
            #expect(error?.description.contains("wrong-Pa55word") == false)
            #expect(error?.description.contains(role.password!) == false)
        }
    }

    @Test func md5() async throws {
        let server = try await PostgresTestServer.get()
        let connection = try server.connect(.md5)
        defer { connection.close() }
        #expect(connection.authenticationMethod == "md5")
        #expect(try connection.queryOne("SELECT current_user AS who")?.string("who") == "md5_user")
    }

    @Test func cleartextPassword() async throws {
        let server = try await PostgresTestServer.get()
        let connection = try server.connect(.cleartext)
        defer { connection.close() }
        #expect(connection.authenticationMethod == "password")
    }

    @Test func trust() async throws {
        let server = try await PostgresTestServer.get()
        let connection = try server.connect(.trust)
        defer { connection.close() }
        #expect(connection.authenticationMethod == "trust")
        #expect(try connection.queryOne("SELECT current_user AS who")?.string("who") == "trust_user")
    }

    @Test func aPasswordRequestWithoutAConfiguredPasswordSaysSo() async throws {
        let server = try await PostgresTestServer.get()
        var configuration = server.configuration(.scram)
        configuration.password = nil
        let error = #expect(throws: PostgresError.self) { try PostgresConnection(configuration: configuration) }
        #expect(error?.kind == .authentication)
        #expect(error?.message.contains("no password") == true)
    }

    @Test func aMissingDatabaseIsAServerError() async throws {
        let server = try await PostgresTestServer.get()
        var configuration = server.configuration(.scram)
        configuration.database = "no_such_database"
        let error = #expect(throws: PostgresError.self) { try PostgresConnection(configuration: configuration) }
        #expect(error?.sqlState == "3D000")
    }

    @Test func unixSocketWithTrust() async throws {
        let server = try await PostgresTestServer.get()
        let url = "postgres://trust_user@/\(server.database)?host=\(server.socketDirectory)&port=\(server.port)&sslmode=require"
        let connection = try PostgresConnection(configuration: try PostgresConfiguration(url: url))
        defer { connection.close() }
        // libpq ignores sslmode on Unix sockets; so does this client.
        #expect(!connection.isEncrypted)
        #expect(try connection.queryOne("SELECT inet_server_addr() IS NULL AS local")?.bool("local") == true)
    }

    @Test func nothingListeningIsAConnectionError() async throws {
        var configuration = PostgresConfiguration(host: "127.0.0.1", port: try freePort(), user: "x", password: "y")
        configuration.connectTimeout = .seconds(2)
        let error = #expect(throws: PostgresError.self) { try PostgresConnection(configuration: configuration) }
        #expect(error?.kind == .connection)
        #expect(error?.message.contains("refused") == true, "\(String(describing: error))")
    }
}
