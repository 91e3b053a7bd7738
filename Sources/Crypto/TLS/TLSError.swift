/// An error from a TLS client connection: configuration, handshake, certificate verification,
/// I/O or timeout. Messages carry OpenSSL's reason strings (from `ERR_get_error`) and never the
/// bytes sent or received.
public struct TLSError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What kind of failure this is.
    public enum Kind: String, Sendable, Equatable {
        /// The client could not be set up (bad CA file, OpenSSL refused an option).
        case configuration
        /// The peer's certificate was not trusted or does not match the host name.
        case certificateVerification
        /// The handshake failed for another reason (protocol version, cipher, peer alert).
        case handshake
        /// Reading or writing failed, or the peer closed the connection.
        case io
        /// The socket's receive or send timeout expired.
        case timeout
    }

    /// What kind of failure this is.
    public let kind: Kind
    /// What went wrong, for logs and operators.
    public let message: String

    /// Creates an error of `kind` with `message`.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The kind and the message.
    public var description: String { "TLS \(kind.rawValue) error: \(message)" }
}
