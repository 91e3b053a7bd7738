import Logging

/// Which transport delivers mail, as chosen in the configuration (`mail.transport`).
public enum MailTransportConfiguration: Sendable, Equatable {
    /// Our SMTP client.
    case smtp(SMTPConfiguration)
    /// One `.eml` file per message in a folder (the demo default).
    case file(directory: String)
    /// One log line per message, without the body.
    case log

    /// Builds the configuration from plain configuration values: `kind` is `smtp`, `file` or `log`;
    /// `smtp` needs `smtp`, `file` needs `directory`.
    /// - Throws: `MailError` (permanent) for an unknown kind or a missing value.
    public init(kind: String, smtp: SMTPConfiguration? = nil, directory: String? = nil) throws {
        switch kind {
        case "smtp":
            guard let smtp else { throw MailError.permanent("mail transport 'smtp' needs the SMTP settings (host, port, security)") }
            self = .smtp(smtp)
        case "file":
            guard let directory, !directory.isEmpty else { throw MailError.permanent("mail transport 'file' needs a directory") }
            self = .file(directory: directory)
        case "log":
            self = .log
        default:
            throw MailError.permanent("unknown mail transport '\(kind)' (expected smtp, file or log)")
        }
    }

    /// The transport this configuration describes; `logger` is used by the log transport.
    public func makeTransport(logger: Logger) -> any MailTransport {
        switch self {
        case .smtp(let configuration): SMTPTransport(configuration: configuration)
        case .file(let directory): FileTransport(directory: directory)
        case .log: LogTransport(logger: logger)
        }
    }
}
