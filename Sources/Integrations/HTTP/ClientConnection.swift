import Crypto
import Sockets

/// One HTTP/1.1 connection to a server: a blocking socket, TLS over it for https, and the bytes
/// read but not consumed yet. Every blocking call is bounded by the exchange's deadline (the
/// socket's receive and send timeouts are set to what is left before each call).
///
/// Not Sendable: one thread uses it at a time (`SocketHTTPClient` hands it over through its
/// pool's lock). It owns the socket and the TLS session and frees both in `deinit`.
final class ClientConnection {
    private let socket: BlockingSocket
    private var tls: TLSClientConnection?
    var buffer: [UInt8] = []

    /// Resolves `host`, connects to the first address that answers and, for https, performs the
    /// TLS handshake, all before `deadline`.
    /// - Throws: `UpstreamError` (`.unreachable`, `.timedOut`).
    init(host: String, port: Int, useTLS: Bool, tlsConfiguration: TLSClientConfiguration, deadline: ContinuousClock.Instant, service: String) throws {
        socket = try UpstreamError.translating(service: service) { try BlockingSocket(host: host, port: port, deadline: deadline) }
        if useTLS {
            try bound(deadline, service: service)
            do {
                tls = try TLSClientConnection(fd: socket.fd, host: host, configuration: tlsConfiguration)
            } catch let error as CryptoError {
                throw UpstreamError(
                    service: service, kind: error.kind == .tlsTimeout ? .timedOut : .unreachable, message: "TLS with \(host): \(error)")
            }
        }
    }

    deinit {
        tls?.shutdown()
        tls = nil
        socket.close()
    }

    /// Sets the socket's timeouts to what is left before `deadline`.
    /// - Throws: `UpstreamError.timedOut` when nothing is left.
    private func bound(_ deadline: ContinuousClock.Instant, service: String) throws {
        let left = ContinuousClock.now.duration(to: deadline)
        guard left >= .milliseconds(1) else { throw UpstreamError(service: service, kind: .timedOut, message: "the exchange timed out") }
        try UpstreamError.translating(service: service) { try socket.setTimeout(left) }
    }

    /// Writes all of `bytes` before `deadline`.
    /// - Throws: `UpstreamError`.
    func write(_ bytes: [UInt8], deadline: ContinuousClock.Instant, service: String) throws {
        try bound(deadline, service: service)
        if let tls {
            do { try tls.write(bytes) } catch let error as CryptoError { throw Self.failure(error, service: service) }
            return
        }
        try UpstreamError.translating(service: service) { try socket.write(bytes) }
    }

    /// Reads what arrives next into `buffer`; false at the end of the stream.
    /// - Throws: `UpstreamError`.
    @discardableResult
    func fill(deadline: ContinuousClock.Instant, service: String) throws -> Bool {
        try bound(deadline, service: service)
        if let tls {
            do {
                return try tls.read(into: &buffer, count: 16_384) > 0
            } catch let error as CryptoError {
                if error.kind == .tlsIO, error.description.contains("closed") { return false }
                throw Self.failure(error, service: service)
            }
        }
        do throws(SocketError) {
            try socket.read(into: &buffer, count: 16_384)
            return true
        } catch {
            if error.kind == .closed { return false }
            throw UpstreamError(service: service, error)
        }
    }

    private static func failure(_ error: CryptoError, service: String) -> UpstreamError {
        UpstreamError(service: service, kind: error.kind == .tlsTimeout ? .timedOut : .unreachable, message: "TLS: \(error)")
    }
}
