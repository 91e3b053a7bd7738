import Foundation
import Postgres
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A private PostgreSQL server for this test process: `initdb` into a fresh temp directory, TLS
/// with a test CA, `pg_hba.conf` lines for each authentication method, on a free loopback port.
///
/// Started once, by the first test that asks (the others await the same task), as the
/// `postgres` user when the tests run as root (postgres refuses to run as root). Stopped with
/// `pg_ctl stop -m immediate` and removed when the test process exits. Missing binaries fail
/// the tests with a message saying to run scripts/install-test-tools; they never skip.
struct PostgresTestServer: Sendable {
    /// The roles `start` creates, by the authentication method pg_hba.conf gives them over TCP.
    enum Role: String, CaseIterable, Sendable {
        /// SCRAM-SHA-256 (the server's default), owner of the test database.
        case scram = "tollgate"
        /// A SCRAM role whose password is not ASCII (SASLprep, NFKC).
        case unicode = "unicode_user"
        /// `md5` in pg_hba.conf with an MD5-stored password, so md5 really is used.
        case md5 = "md5_user"
        /// `password` (cleartext) in pg_hba.conf.
        case cleartext = "password_user"
        /// `trust` in pg_hba.conf: no password asked.
        case trust = "trust_user"

        var password: String? {
            switch self {
            case .scram: "scr@m p:ss/w?rd#1"
            case .unicode: "pässwörd ünïcode ✓"
            case .md5: "md5 s3cret"
            case .cleartext: "clear s3cret"
            case .trust: nil
            }
        }
    }

    let root: String
    let port: Int
    /// The database every role may use.
    let database = "tollgate_test"
    /// The CA that signed the server's certificate (for `localhost` only, not `127.0.0.1`).
    let caFile: String
    /// A CA that did not.
    let otherCAFile: String

    /// Made once per test process.
    private static let shared = Task { try await start() }

    /// The server of this test process, started on first use.
    /// - Throws: `HarnessError` naming what failed (binaries missing, initdb, pg_ctl...).
    static func get() async throws -> PostgresTestServer {
        try await shared.value
    }

    /// A configuration for `role` on host `host` (127.0.0.1 by default), TLS `sslMode`.
    func configuration(_ role: Role = .scram, host: String = "127.0.0.1", sslMode: SSLMode = .disable) -> PostgresConfiguration {
        var configuration = PostgresConfiguration(
            host: host, port: port, user: role.rawValue, password: role.password, database: database, sslMode: sslMode,
            connectTimeout: .seconds(10), ioTimeout: .seconds(30), applicationName: "tollgate-tests")
        if sslMode == .verifyFull { configuration.sslRootCertificate = caFile }
        return configuration
    }

    /// A connection for `role`.
    func connect(_ role: Role = .scram) throws -> PostgresConnection {
        try PostgresConnection(configuration: configuration(role))
    }

    /// The Unix socket directory.
    var socketDirectory: String { root }

    // MARK: Start-up

    private static func start() async throws -> PostgresTestServer {
        let binaries = try findBinaries()
        let runAsPostgres = geteuid() == 0
        let root = try makeRoot()
        let port = try freePort()
        let certificates = try await makeCertificates(in: root)
        try "postgres-superuser-\(UUID().uuidString)\n".write(toFile: "\(root)/superuser-password", atomically: true, encoding: .utf8)
        if runAsPostgres { try await run("/bin/chown", ["-R", "postgres:postgres", root]) }
        let asServerUser: (String, [String]) -> (String, [String]) = { tool, arguments in
            runAsPostgres ? ("/usr/sbin/runuser", ["-u", "postgres", "--", tool] + arguments) : (tool, arguments)
        }

        let data = "\(root)/data"
        let initdb = asServerUser(
            "\(binaries)/initdb",
            [
                "-D", data, "-U", "postgres", "--pwfile=\(root)/superuser-password", "-E", "UTF8", "--locale=C",
                "--auth-local=trust", "--auth-host=scram-sha-256", "--no-sync"
            ])
        try await run(initdb.0, initdb.1)
        try """
        # TYPE  DATABASE  USER           ADDRESS        METHOD
        local   all       all                           trust
        host    all       trust_user     127.0.0.1/32   trust
        host    all       md5_user       127.0.0.1/32   md5
        host    all       password_user  127.0.0.1/32   password
        host    all       all            127.0.0.1/32   scram-sha-256

        """.write(toFile: "\(data)/pg_hba.conf", atomically: true, encoding: .utf8)
        let settings = """

            # Tollgate tests
            listen_addresses = '127.0.0.1'
            port = \(port)
            unix_socket_directories = '\(root)'
            max_connections = 100
            shared_buffers = 16MB
            fsync = off
            synchronous_commit = off
            full_page_writes = off
            ssl = on
            ssl_cert_file = '\(certificates.certificate)'
            ssl_key_file = '\(certificates.key)'
            logging_collector = off

            """
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: "\(data)/postgresql.conf"))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(settings.utf8))
        try handle.close()
        if runAsPostgres { try await run("/bin/chown", ["-R", "postgres:postgres", root]) }

        let start = asServerUser("\(binaries)/pg_ctl", ["-D", data, "-l", "\(root)/server.log", "-w", "-t", "60", "start"])
        do {
            try await run(start.0, start.1)
        } catch {
            let log = (try? String(contentsOfFile: "\(root)/server.log", encoding: .utf8)) ?? ""
            throw HarnessError(description: "\(error)\nserver log:\n\(log)")
        }
        ServerReaper.register(pgCtl: "\(binaries)/pg_ctl", data: data, root: root, runAsPostgres: runAsPostgres)

        let setup = """
            CREATE ROLE tollgate LOGIN PASSWORD '\(Role.scram.password!)';
            CREATE ROLE unicode_user LOGIN PASSWORD '\(Role.unicode.password!)';
            CREATE ROLE trust_user LOGIN;
            CREATE ROLE password_user LOGIN PASSWORD '\(Role.cleartext.password!)';
            SET password_encryption = 'md5';
            CREATE ROLE md5_user LOGIN PASSWORD '\(Role.md5.password!)';
            RESET password_encryption;
            """
        // CREATE DATABASE cannot share a query string with other statements: a -c of its own.
        let psql = asServerUser(
            "\(binaries)/psql",
            [
                "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", root, "-p", String(port), "-U", "postgres", "-d", "postgres", "-c", setup,
                "-c", "CREATE DATABASE tollgate_test OWNER tollgate"
            ])
        try await run(psql.0, psql.1)
        let grants = asServerUser(
            "\(binaries)/psql",
            [
                "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", root, "-p", String(port), "-U", "postgres", "-d", "tollgate_test", "-c",
                "GRANT ALL ON SCHEMA public TO PUBLIC; GRANT pg_signal_backend TO tollgate;"
            ])
        try await run(grants.0, grants.1)
        return PostgresTestServer(root: root, port: port, caFile: certificates.caFile, otherCAFile: certificates.otherCAFile)
    }

    /// The newest `/usr/lib/postgresql/<version>/bin` that has initdb and pg_ctl.
    private static func findBinaries() throws -> String {
        let base = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: base)) ?? []).compactMap(Int.init).sorted(by: >)
        for version in versions {
            let bin = "\(base)/\(version)/bin"
            if ["initdb", "pg_ctl", "psql"].allSatisfy({ FileManager.default.isExecutableFile(atPath: "\(bin)/\($0)") }) {
                return bin
            }
        }
        throw HarnessError(
            description: """
                PostgreSQL server binaries (initdb, pg_ctl, psql) were not found under \(base)/<version>/bin. \
                The Postgres tests run against a real server: run scripts/install-test-tools (it installs Debian's postgresql package).
                """)
    }

    private static func makeRoot() throws -> String {
        var template = Array("/tmp/tollgate-pg-XXXXXX".utf8CString)
        guard let pointer = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw HarnessError(description: "mkdtemp failed: \(String(cString: strerror(errno)))")
        }
        let path = String(cString: pointer)
        // The server's user must be able to enter the directory; its contents are chowned later.
        chmod(path, 0o755)
        return path
    }

    /// A test CA and a server certificate for `localhost` (DNS name only), plus an unrelated CA.
    private static func makeCertificates(in root: String) async throws -> (caFile: String, otherCAFile: String, certificate: String, key: String) {
        let directory = "\(root)/certs"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for name in ["ca", "other-ca"] {
            try await TestCertificateFactory.makeCA(name, commonName: "Tollgate Postgres Test \(name)", in: directory)
        }
        try await TestCertificateFactory.makeLocalhostServer(signedBy: "ca", in: directory)
        // PostgreSQL refuses a key others can read.
        chmod("\(directory)/server.key", 0o600)
        return ("\(directory)/ca.pem", "\(directory)/other-ca.pem", "\(directory)/server.pem", "\(directory)/server.key")
    }

    /// Runs a tool to completion off the concurrency pool; a non-zero exit is an error with its output.
    static func run(_ executable: String, _ arguments: [String]) async throws {
        let result = try await ChildProcessRunner.run(executable, arguments)
        guard result.status == 0, !result.endedBySignal else {
            throw HarnessError(
                description: """
                    \(executable) \(arguments.prefix(2).joined(separator: " ")) failed with \(result.status): \
                    \(result.stderrText) \(result.stdoutText)
                    """)
        }
    }
}
