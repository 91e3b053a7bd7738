/// The one error type of the Postgres module: a kind to branch on, a message a person can act
/// on, and the server's own fields when PostgreSQL sent an ErrorResponse.
///
/// Never in the text: passwords, bound parameter values, or the server's DETAIL field (which
/// echoes key values, "Key (email)=(jane@example.com) already exists"); `server.detail` still
/// holds it for callers that decide to show it.
public struct PostgresError: Error, CustomStringConvertible, Sendable {
    /// What kind of failure this is.
    public enum Kind: String, Sendable, Equatable {
        /// A bad connection URL or option (the message names the part, never the password).
        case configuration
        /// The server could not be reached, or the connection broke (reset, closed, I/O error).
        case connection
        /// Connecting, reading or writing took longer than the configured timeout.
        case timeout
        /// TLS could not be set up: the server refused SSL, the handshake or the certificate failed.
        case tls
        /// Authentication failed or uses a method this client does not speak.
        case authentication
        /// The server answered with an ErrorResponse (see `server`, `sqlState`).
        case server
        /// COMMIT answered ROLLBACK: the transaction had already failed and nothing was committed.
        case transactionRolledBack
        /// A statement the client refuses to send (a NUL byte in the SQL, more than 65535 parameters,
        /// a value over PostgreSQL's 1 GiB limit).
        case invalidArgument
        /// The server sent something the protocol does not allow here.
        case protocolViolation
        /// A result value could not be read as the requested Swift type.
        case decoding
        /// No pooled connection became free within the checkout timeout, or the pool is closed.
        case pool
        /// The connection was closed (by `close()` or after an earlier I/O failure).
        case closed
        /// A claim (`PostgresConnection.executeDeferredClaim`) changed no row: the key it claims
        /// was taken. The server met no error; the transaction is still open, for the caller to
        /// roll back.
        case claimRefused
    }

    /// What kind of failure this is.
    public let kind: Kind
    /// What went wrong, for logs and operators.
    public let message: String
    /// The server's ErrorResponse fields, when the server sent one.
    public let server: PostgresServerMessage?
    /// When a statement queued by `PostgresConnection.executeDeferred` failed: its position among
    /// the deferred statements sent with the statement (or COMMIT) that reports the error.
    public let deferredStatement: Int?

    /// An error of `kind` with `message` and, when the server sent one, its fields.
    public init(_ kind: Kind, _ message: String, server: PostgresServerMessage? = nil, deferredStatement: Int? = nil) {
        self.kind = kind
        self.message = message
        self.server = server
        self.deferredStatement = deferredStatement
    }

    /// The five-character SQLSTATE the server sent ("23505"), or nil for client-side errors.
    public var sqlState: String? { server?.code }
    /// SQLSTATE 23505: a unique or primary key constraint refused the row.
    public var isUniqueViolation: Bool { sqlState == "23505" }
    /// SQLSTATE 23503: a foreign key constraint refused the row.
    public var isForeignKeyViolation: Bool { sqlState == "23503" }
    /// SQLSTATE 40001: a serializable transaction must be retried.
    public var isSerializationFailure: Bool { sqlState == "40001" }
    /// SQLSTATE 40P01: the server broke a deadlock by aborting this transaction; retry it.
    public var isDeadlock: Bool { sqlState == "40P01" }
    /// SQLSTATE 57014: the statement was cancelled (a cancel request, `statement_timeout`).
    public var isQueryCanceled: Bool { sqlState == "57014" }
    /// SQLSTATE 28P01: the password was wrong (or the user does not exist).
    public var isInvalidPassword: Bool { sqlState == "28P01" }
    /// True when retrying the whole transaction may succeed (serialization failure, deadlock).
    public var isTransient: Bool { isSerializationFailure || isDeadlock }

    /// "PostgreSQL <kind> error: message", plus the SQLSTATE, constraint and table when known.
    public var description: String {
        var text = "PostgreSQL \(kind.rawValue) error: \(message)"
        if let server {
            text += " (SQLSTATE \(server.code)"
            if let constraint = server.constraint { text += ", constraint \(constraint)" }
            if let table = server.table { text += ", table \(table)" }
            text += ")"
        }
        return text
    }
}
