import Crypto
import Sockets

/// The connection's byte stream, plain or TLS, cut into backend messages.
///
/// Reads go into one buffer consumed from the front (compacted when the consumed part is large),
/// so a message is never copied more than once and a long result is never rescanned.
///
/// Not Sendable: owned by one `PostgresConnection`. It owns the socket and the TLS session and
/// releases the session before closing the socket.
final class MessageStream {
    private let socket: BlockingSocket
    private var tls: TLSClientConnection?
    private var buffer: [UInt8] = []
    private var start = 0

    /// The largest message accepted: PostgreSQL's 1 GiB field limit plus headers.
    static let maximumMessageLength = (1 << 30) + (1 << 20)
    private static let readSize = 65_536

    init(socket: BlockingSocket) {
        self.socket = socket
    }

    /// Whether TLS is on.
    var isEncrypted: Bool { tls != nil }

    /// Sets the per-call read and write deadline.
    /// - Throws: `PostgresError` (`.connection`).
    func setTimeout(_ timeout: Duration) throws { try PostgresError.translating { try socket.setTimeout(timeout) } }

    /// Writes `messages` in one go.
    /// - Throws: `PostgresError` (`.timeout`, `.connection`).
    func send(_ messages: FrontendMessages) throws {
        if let tls {
            do { try tls.write(messages.bytes) } catch let error as CryptoError { throw Self.translate(error) }
        } else {
            try PostgresError.translating { try socket.write(messages.bytes) }
        }
    }

    /// The one-byte answer to an SSLRequest, read alone: bytes after it would be plaintext the
    /// server (or someone in the middle) injected before the handshake (CVE-2021-23222), so they
    /// are left in the socket for the TLS handshake to reject.
    /// - Throws: `PostgresError` (`.timeout`, `.connection`).
    func readSSLResponse() throws -> UInt8 {
        precondition(buffer.count == start && tls == nil)
        var single: [UInt8] = []
        try PostgresError.translating { try socket.read(into: &single, count: 1) }
        return single[0]
    }

    /// Performs the TLS handshake on the connected socket.
    /// - Throws: `PostgresError` (`.tls`, `.timeout`).
    func startTLS(host: String, configuration: TLSClientConfiguration) throws {
        do {
            tls = try TLSClientConnection(fd: socket.fd, host: host, configuration: configuration)
        } catch let error as CryptoError {
            throw error.kind == .tlsTimeout ? Self.translate(error) : PostgresError(.tls, "TLS with \(host) failed: \(error.message)")
        }
    }

    /// The next message from the server.
    /// - Throws: `PostgresError` (`.timeout`, `.connection`, `.protocolViolation`).
    func receive() throws -> BackendMessage {
        try fill(5)
        let type = buffer[start]
        let length = Int(
            UInt32(buffer[start + 1]) << 24 | UInt32(buffer[start + 2]) << 16 | UInt32(buffer[start + 3]) << 8 | UInt32(buffer[start + 4]))
        guard length >= 4, length <= Self.maximumMessageLength else {
            throw PostgresError(.protocolViolation, "a message from the server claims \(length) bytes")
        }
        try fill(1 + length)
        let body = Array(buffer[(start + 5)..<(start + 1 + length)])
        start += 1 + length
        return try BackendMessage.parse(type: type, body: body)
    }

    /// Whether the server sent something while nobody asked (a FATAL before closing, or the close
    /// itself): a pooled connection with pending input is not reused.
    func hasUnexpectedInput() -> Bool { buffer.count > start || socket.hasPendingInput() }

    /// Sends Terminate (best effort), closes TLS and the socket. Idempotent.
    func close(sayGoodbye: Bool) {
        if sayGoodbye, socket.fd >= 0 {
            var goodbye = FrontendMessages()
            goodbye.terminate()
            try? send(goodbye)
        }
        tls?.shutdown()
        tls = nil
        socket.close()
    }

    /// Reads until `count` unconsumed bytes are buffered.
    private func fill(_ count: Int) throws {
        while buffer.count - start < count {
            if start > 0, start >= buffer.count / 2 {
                buffer.removeSubrange(0..<start)
                start = 0
            }
            // A large message grows the buffer once, then arrives in fixed-size reads (each read
            // zero-fills its chunk first, so the chunk must not scale with the message).
            if buffer.capacity < start + count { buffer.reserveCapacity(start + count) }
            if let tls {
                do { _ = try tls.read(into: &buffer, count: Self.readSize) } catch let error as CryptoError { throw Self.translate(error) }
            } else {
                try PostgresError.translating { try socket.read(into: &buffer, count: Self.readSize) }
            }
        }
    }

    private static func translate(_ error: CryptoError) -> PostgresError {
        switch error.kind {
        case .tlsTimeout: PostgresError(.timeout, "timed out waiting for the server (TLS)")
        default: PostgresError(.connection, error.message)
        }
    }
}
