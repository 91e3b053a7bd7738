import Sockets

extension PostgresError {
    /// What a socket failure is to a PostgreSQL client: a timeout stays `.timeout`, a Unix socket
    /// path too long is `.configuration`, anything else (unresolved, refused, closed, reset) is
    /// `.connection`. The message names the server's address.
    init(_ error: SocketError) {
        switch error.kind {
        case .timeout: self.init(.timeout, error.message)
        case .invalidAddress: self.init(.configuration, error.message)
        case .resolution, .refused, .unreachable, .closed, .io: self.init(.connection, error.message)
        }
    }

    /// Runs `call` (socket calls), its `SocketError` turned into the `PostgresError` it is.
    /// - Throws: `PostgresError` (`.timeout`, `.connection`, `.configuration`).
    static func translating<T>(_ call: () throws -> T) throws -> T {
        do {
            return try call()
        } catch let error as SocketError {
            throw PostgresError(error)
        }
    }
}
