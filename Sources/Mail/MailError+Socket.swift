import Sockets

extension MailError {
    /// What a socket failure is to the outbox: transient, whatever its kind (the server may be
    /// reachable, listening or faster on the next attempt). The message names the server.
    init(_ error: SocketError) {
        self.init(.transient, "SMTP: \(error.message)")
    }

    /// Runs `call` (socket calls), its `SocketError` turned into the `MailError` it is.
    /// - Throws: `MailError` (transient).
    static func translating<T>(_ call: () throws -> T) throws -> T {
        do {
            return try call()
        } catch let error as SocketError {
            throw MailError(error)
        }
    }
}
