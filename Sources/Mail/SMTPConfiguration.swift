/// How the SMTP client connects: implicit TLS (usually port 465), STARTTLS (usually port 587)
/// or, for a local relay only, no encryption.
public enum SMTPSecurity: String, Sendable, Equatable, CaseIterable {
    /// Plain TCP, upgraded with STARTTLS before anything else; refuses to continue in plaintext
    /// when the server does not offer STARTTLS.
    case starttls
    /// TLS from the first byte (SMTPS).
    case tls
    /// No encryption (a relay on the same host or network only).
    case none
}

/// Settings of the SMTP transport.
public struct SMTPConfiguration: Sendable, Equatable {
    /// The server's host name (verified against its certificate) or IP address.
    public var host: String
    /// The server's port (587 for STARTTLS, 465 for implicit TLS, 25 for a relay).
    public var port: Int
    /// How the connection is encrypted.
    public var security: SMTPSecurity
    /// The login for AUTH PLAIN / LOGIN; nil to send without authenticating.
    public var username: String?
    /// The password for AUTH; never logged nor put in an error.
    public var password: String?
    /// A PEM file of CA certificates to trust instead of the system store.
    public var caFile: String?
    /// The name sent in EHLO (this host's name).
    public var heloName: String
    /// Limit for connecting (TCP and, for implicit TLS, the handshake).
    public var connectTimeout: Duration
    /// Limit for each server reply (and for each write).
    public var replyTimeout: Duration
    /// Limit for the reply to the end of DATA (servers scan the message then).
    public var dataTimeout: Duration

    /// Creates a configuration; the timeouts default to RFC 5321 §4.5.3.2-inspired but shorter values.
    public init(
        host: String, port: Int, security: SMTPSecurity, username: String? = nil, password: String? = nil,
        caFile: String? = nil, heloName: String = "localhost", connectTimeout: Duration = .seconds(15),
        replyTimeout: Duration = .seconds(60), dataTimeout: Duration = .seconds(180)
    ) {
        self.host = host
        self.port = port
        self.security = security
        self.username = username
        self.password = password
        self.caFile = caFile
        self.heloName = heloName
        self.connectTimeout = connectTimeout
        self.replyTimeout = replyTimeout
        self.dataTimeout = dataTimeout
    }
}
