import Logging

/// "Delivers" each message as one log line (`mail.logged`): outbox id, template, masked recipient
/// and Message-ID. The subject and body are never logged, since they carry codes and links.
public struct LogTransport: MailTransport {
    /// Where the lines go.
    public let logger: Logger

    /// A transport writing to `logger`.
    public init(logger: Logger) {
        self.logger = logger
    }

    /// Logs one line for `message`.
    /// - Throws: `MailError` (permanent) when the message could not be formatted, so that the log
    ///   transport refuses exactly what a real one would.
    public func send(_ message: MailMessage) async throws {
        _ = try message.rendered()
        logger.info(
            "mail.logged",
            [
                ("outbox_id", .string(message.outboxID)),
                ("template", .string(message.template)),
                ("to", .string(message.to.masked)),
                ("message_id", .string(message.messageID))
            ])
    }
}
