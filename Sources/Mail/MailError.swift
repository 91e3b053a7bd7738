/// An error from the Mail module: building, rendering or delivering a message.
///
/// `disposition` tells the outbox what to do: a `.transient` failure is retried later on the
/// backoff schedule (network down, timeout, SMTP 4xx, a TLS certificate the configuration does not
/// trust yet); a `.permanent` one marks the message failed at once (SMTP 5xx, a header with a line
/// break, a missing template). Messages never contain a message body, a code or a password.
public struct MailError: Error, CustomStringConvertible, Sendable, Equatable {
    /// Whether a later attempt may succeed.
    public enum Disposition: String, Sendable, Equatable {
        /// Retry later.
        case transient
        /// Retrying will not help: mark the message failed.
        case permanent
    }

    /// Whether a later attempt may succeed.
    public let disposition: Disposition
    /// What went wrong; for SMTP replies, the server's code and text.
    public let message: String
    /// The SMTP reply code, when the failure is a server reply.
    public let replyCode: Int?

    /// Creates an error.
    public init(_ disposition: Disposition, _ message: String, replyCode: Int? = nil) {
        self.disposition = disposition
        self.message = message
        self.replyCode = replyCode
    }

    /// A failure worth retrying later.
    public static func transient(_ message: String, replyCode: Int? = nil) -> MailError {
        MailError(.transient, message, replyCode: replyCode)
    }

    /// A failure that retrying cannot fix.
    public static func permanent(_ message: String, replyCode: Int? = nil) -> MailError {
        MailError(.permanent, message, replyCode: replyCode)
    }

    /// True for `.permanent`.
    public var isPermanent: Bool { disposition == .permanent }

    /// The disposition and the message.
    public var description: String { "\(disposition.rawValue) mail error: \(message)" }
}
