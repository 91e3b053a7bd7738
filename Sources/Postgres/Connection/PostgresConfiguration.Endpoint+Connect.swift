import Sockets

extension PostgresConfiguration.Endpoint {
    /// A blocking socket connected to this endpoint: over TCP, each resolved address in turn
    /// within `timeout` each; over a Unix-domain socket, `directory/.s.PGSQL.<port>`.
    /// - Throws: `PostgresError` (`.connection`, `.timeout` when every attempt timed out,
    ///   `.configuration` for a socket path too long).
    func connect(timeout: Duration) throws -> BlockingSocket {
        try PostgresError.translating {
            switch self {
            case .tcp(let host, let port): try BlockingSocket(host: host, port: port, timeout: timeout)
            case .unixSocket(let directory, let port): try BlockingSocket(unixPath: "\(directory)/.s.PGSQL.\(port)", timeout: timeout)
            }
        }
    }
}
