import Foundation

/// One outbox row as the operator sees it: no body, no parameters (they hold codes and links),
/// and the recipient masked.
public struct OutboxEntry: Sendable, Equatable {
    /// The outbox id.
    public let id: String
    /// The template name.
    public let template: String
    /// The recipient, masked (`j•••@e•••.com`, `EmailMask`).
    public let maskedRecipient: String
    /// The current status.
    public let status: OutboxStatus
    /// Delivery attempts started so far.
    public let attempts: Int
    /// Why the last attempt failed (the server's text for SMTP replies), if it did.
    public let lastError: String?
    /// The stable Message-ID.
    public let messageID: String
    /// When it was enqueued.
    public let createdAt: Date
    /// When the row last changed.
    public let updatedAt: Date
    /// When the next attempt is due (meaningful while pending).
    public let nextAttemptAt: Date
    /// When the transport accepted it.
    public let sentAt: Date?
}
