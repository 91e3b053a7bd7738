/// Where and how to connect: server, credentials, database, TLS and timeouts.
///
/// Usually parsed from a URL (`PostgresConfiguration(url:)`); every field may be set in code too.
/// `description` never shows the password.
public struct PostgresConfiguration: Sendable, Equatable, CustomStringConvertible {
    /// How the server is reached.
    public enum Endpoint: Sendable, Equatable {
        /// TCP to a host name or IP address and port.
        case tcp(host: String, port: Int)
        /// A Unix-domain socket: `directory/.s.PGSQL.<port>` (the URL's `?host=/path`).
        case unixSocket(directory: String, port: Int)
    }

    /// How the server is reached.
    public var endpoint: Endpoint
    /// The role to log in as.
    public var user: String
    /// The password, for password, md5 and SCRAM authentication; nil when none is configured.
    public var password: String?
    /// The database; the server uses the user's name when nil.
    public var database: String?
    /// TLS (ignored for Unix sockets, as libpq does).
    public var sslMode: SSLMode
    /// A PEM file of CA certificates for `verify-full` (libpq's `sslrootcert`); the system store when nil.
    public var sslRootCertificate: String?
    /// How long to wait for the TCP connection (each resolved address in turn) and the whole startup
    /// with authentication (libpq's `connect_timeout`, default 10 s).
    public var connectTimeout: Duration
    /// How long any single read or write may block once connected (default 30 s). A query whose
    /// answer takes longer fails with `.timeout`; the client then asks the server to cancel it and
    /// closes the connection.
    public var ioTimeout: Duration
    /// Sent as `application_name` (shown in `pg_stat_activity`).
    public var applicationName: String?
    /// Sent as the `options` startup parameter, as libpq's `options`: command-line settings for
    /// the session such as `-c search_path=tenant_a` or `-c statement_timeout=5s`.
    public var options: String?
    /// How many named prepared statements each connection keeps (least recently used are closed
    /// first); 0 uses the unnamed statement every time.
    public var statementCacheCapacity: Int

    /// A configuration for `host:port` with these credentials and defaults elsewhere.
    public init(
        host: String, port: Int = 5432, user: String, password: String? = nil, database: String? = nil,
        sslMode: SSLMode = .prefer, sslRootCertificate: String? = nil, connectTimeout: Duration = .seconds(10),
        ioTimeout: Duration = .seconds(30), applicationName: String? = nil, statementCacheCapacity: Int = 64
    ) {
        self.endpoint = .tcp(host: host, port: port)
        self.user = user
        self.password = password
        self.database = database
        self.sslMode = sslMode
        self.sslRootCertificate = sslRootCertificate
        self.connectTimeout = connectTimeout
        self.ioTimeout = ioTimeout
        self.applicationName = applicationName
        self.statementCacheCapacity = statementCacheCapacity
    }

    /// The host name TLS verifies and logs name: the TCP host, or the socket directory.
    public var host: String {
        switch endpoint {
        case .tcp(let host, _): host
        case .unixSocket(let directory, _): directory
        }
    }

    /// The port (for a Unix socket, the number in the socket file's name).
    public var port: Int {
        switch endpoint {
        case .tcp(_, let port), .unixSocket(_, let port): port
        }
    }

    /// The settings without the password: `postgres://user:***@host:port/db?sslmode=...`.
    public var description: String {
        var text = "postgres://\(user)\(password == nil ? "" : ":***")@"
        switch endpoint {
        case .tcp(let host, let port): text += (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
        case .unixSocket(_, let port): text += ":\(port)"
        }
        text += "/\(database ?? user)?sslmode=\(sslMode.rawValue)"
        if case .unixSocket(let directory, _) = endpoint { text += "&host=\(directory)" }
        return text
    }
}
