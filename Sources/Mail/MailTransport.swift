/// Delivers one message: over SMTP, into a folder, or into the log.
///
/// `send` returns once the message is handed over (accepted by the SMTP server, renamed into
/// place, logged). It throws `MailError`: `.transient` to retry later, `.permanent` to give up.
/// A transport may be called concurrently for different messages.
public protocol MailTransport: Sendable {
    /// Delivers `message`.
    /// - Throws: `MailError` saying whether a retry may succeed.
    func send(_ message: MailMessage) async throws
}
