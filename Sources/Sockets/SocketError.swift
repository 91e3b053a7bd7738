/// The one error type of the Sockets module: a kind to branch on and a message naming the peer
/// and the cause ("cannot connect to 127.0.0.1:5432: Connection refused").
///
/// Clients map it to their own error type in one place; the message carries no payload bytes.
public struct SocketError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What kind of failure this is.
    public enum Kind: String, Sendable, Equatable {
        /// The host name could not be resolved (`getaddrinfo` failed).
        case resolution
        /// Every address refused the connection (nothing listens there).
        case refused
        /// No address could be reached for another reason (no route, network down, no socket).
        case unreachable
        /// Connecting, reading or writing took longer than its timeout.
        case timeout
        /// The peer closed the connection (end of stream on a read).
        case closed
        /// A read, a write or a socket option failed (reset, broken pipe...).
        case io
        /// The address cannot be used as given (a Unix socket path that is too long).
        case invalidAddress
    }

    /// What kind of failure this is.
    public let kind: Kind
    /// What went wrong, naming the peer, for logs and operators.
    public let message: String

    /// An error of `kind` with `message`.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// "socket <kind> error: message".
    public var description: String { "socket \(kind.rawValue) error: \(message)" }
}
