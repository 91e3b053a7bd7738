import Foundation

/// One email ready to hand to a `MailTransport`: envelope, headers and the text (and optional
/// HTML) body. `rendered()` turns it into RFC 5322 bytes.
public struct MailMessage: Sendable, Equatable {
    /// The outbox row this message comes from (names the file of the file transport).
    public var outboxID: String
    /// The template it was rendered from (for logs; never the parameters).
    public var template: String
    /// The sender (header `From` and SMTP `MAIL FROM`).
    public var from: MailAddress
    /// The single recipient (header `To` and SMTP `RCPT TO`).
    public var to: MailAddress
    /// The subject; any text without line breaks.
    public var subject: String
    /// The plain-text body.
    public var textBody: String
    /// The HTML body; when present the message is `multipart/alternative`.
    public var htmlBody: String?
    /// `<unique@domain>`, stable for the outbox row so a receiver can drop a duplicate.
    public var messageID: String
    /// The `Date` header.
    public var date: Date
    /// The one-click unsubscribe URL (RFC 8058): written as `List-Unsubscribe: <url>` with
    /// `List-Unsubscribe-Post: List-Unsubscribe=One-Click`; nil for mail one cannot leave.
    public var listUnsubscribe: String? = nil

    /// Creates a message; nothing is validated until `rendered()`.
    public init(
        outboxID: String, template: String, from: MailAddress, to: MailAddress, subject: String,
        textBody: String, htmlBody: String?, messageID: String, date: Date
    ) {
        self.outboxID = outboxID
        self.template = template
        self.from = from
        self.to = to
        self.subject = subject
        self.textBody = textBody
        self.htmlBody = htmlBody
        self.messageID = messageID
        self.date = date
    }

    /// The message as RFC 5322 bytes with CRLF line endings (not yet dot-stuffed for SMTP).
    /// - Throws: `MailError` (permanent) when the subject or Message-ID contains a line break.
    public func rendered() throws -> [UInt8] {
        try MessageFormatter.format(self)
    }
}
