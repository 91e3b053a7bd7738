import Postgres
import Testing

/// `PostgresConfiguration(url:)`: libpq's URL shape, percent-decoding, defaults, and errors that
/// name the bad part without ever showing the password.
@Suite struct URLParsingTests {
    @Test func fullURLWithEveryParameter() throws {
        let configuration = try PostgresConfiguration(
            url:
                "postgres://app%20user:p%40ss%2Fw%3Ard%3F@db.example.com:6432/tollgate%5Fprod?sslmode=verify-full&sslrootcert=/etc/ca%20file.pem&connect_timeout=7&application_name=tollgate&options=-c%20search_path%3Dtenant_a"
        )
        #expect(configuration.endpoint == .tcp(host: "db.example.com", port: 6432))
        #expect(configuration.user == "app user")
        #expect(configuration.password == "p@ss/w:rd?")
        #expect(configuration.database == "tollgate_prod")
        #expect(configuration.sslMode == .verifyFull)
        #expect(configuration.sslRootCertificate == "/etc/ca file.pem")
        #expect(configuration.connectTimeout == .seconds(7))
        #expect(configuration.applicationName == "tollgate")
        #expect(configuration.options == "-c search_path=tenant_a")
        #expect(!configuration.description.contains("p@ss"))
        #expect(configuration.description.contains("***"))
    }

    @Test func defaultsAndTheOtherScheme() throws {
        let configuration = try PostgresConfiguration(url: "postgresql://jane@localhost")
        #expect(configuration.endpoint == .tcp(host: "localhost", port: 5432))
        #expect(configuration.user == "jane")
        #expect(configuration.password == nil)
        #expect(configuration.database == nil)
        #expect(configuration.sslMode == .prefer)
        #expect(configuration.connectTimeout == .seconds(10))
    }

    @Test func ipv6PasswordWithColonAndUnixSocket() throws {
        let v6 = try PostgresConfiguration(url: "postgres://u:a:b@[::1]:5433/db?sslmode=require")
        #expect(v6.endpoint == .tcp(host: "::1", port: 5433))
        #expect(v6.password == "a:b")
        #expect(v6.sslMode == .require)

        let socket = try PostgresConfiguration(url: "postgres://u@/db?host=%2Fvar%2Frun%2Fpostgresql&port=5433")
        #expect(socket.endpoint == .unixSocket(directory: "/var/run/postgresql", port: 5433))
        let unicode = try PostgresConfiguration(url: "postgres://j%C3%BCrgen:%E2%9C%93@h/d%C3%A9")
        #expect(unicode.user == "jürgen")
        #expect(unicode.password == "✓")
        #expect(unicode.database == "dé")
    }

    @Test(arguments: [
        ("mysql://u:pw@h/db", "postgres://"),
        ("postgres://:pw@h/db", "no user"),
        ("postgres://u:pw@/db", "no host"),
        ("postgres://u:pw@h:99999/db", "port"),
        ("postgres://u:pw@h:54x2/db", "port"),
        ("postgres://u:pw@h1,h2/db", "several hosts"),
        ("postgres://u:pw@h/db?sslmode=verify-ca", "verify-ca"),
        ("postgres://u:pw@h/db?sslmode=bogus", "sslmode must be one of"),
        ("postgres://u:pw@h/db?connect_timeout=soon", "connect_timeout"),
        ("postgres://u:pw@h/db?frobnicate=1", "unknown query parameter 'frobnicate'"),
        ("postgres://u:pw@h/db?sslmode", "has no '=value'"),
        ("postgres://u:p%zzw@h/db", "the password has a '%'"),
        ("postgres://u%ff:pw@h/db", "the user name is not valid UTF-8"),
        ("postgres://u:pw@[::1/db", "closing ']'")
    ])
    func badURLsNameTheBadPart(url: String, expected: String) {
        let error = #expect(throws: PostgresError.self) { try PostgresConfiguration(url: url) }
        #expect(error?.kind == .configuration)
        #expect(error?.description.contains(expected) == true, "\(String(describing: error))")
        #expect(error?.description.contains("pw") == false)
    }

    /// Reserved characters left raw in a password must not move its pieces into a message.
    @Test(arguments: [
        "postgres://u:hunter2?secret@h/db",
        "postgres://u:hunter2/secret@h/db",
        "postgres://u:hunter2#secret@h/db",
        "postgres://u:hunter2secret@h:x/db",
        "postgres://u:hunter2%secret@h/db",
        "postgres://u:hunter2@h/db?password=hunter2secret&sslmode=nope",
        "postgres://u:hunter2?sslmode=secret@h/db"
    ])
    func passwordsNeverAppearInErrors(url: String) {
        let error = #expect(throws: PostgresError.self) { try PostgresConfiguration(url: url) }
        let text = String(describing: error)
        #expect(!text.contains("hunter"), "\(text)")
        #expect(!text.contains("secret"), "\(text)")
    }
}
