import Sockets

extension UpstreamError {
    /// What a socket failure is to an outbound call of `service`: `.timedOut` for a timeout (every
    /// connection attempt, or a read or write), `.unreachable` for anything else (unresolved,
    /// refused, closed, reset); both are retryable. The message names the server's address.
    init(service: String, _ error: SocketError) {
        self.init(service: service, kind: error.kind == .timeout ? .timedOut : .unreachable, message: error.message)
    }

    /// Runs `call` (socket calls), its `SocketError` turned into the `UpstreamError` it is for `service`.
    /// - Throws: `UpstreamError` (`.timedOut`, `.unreachable`).
    static func translating<T>(service: String, _ call: () throws -> T) throws -> T {
        do {
            return try call()
        } catch let error as SocketError {
            throw UpstreamError(service: service, error)
        }
    }
}
