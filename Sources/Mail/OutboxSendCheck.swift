import Foundation

/// Decides, when a message leaves the outbox, whether it still should: mail whose reason to
/// exist can lapse after it was queued (a reminder to redeem a code that was redeemed since).
/// The worker asks before rendering; a message the check stops is removed from the outbox,
/// never sent. A check that throws leaves the message to be tried again later.
public protocol OutboxSendCheck: Sendable {
    /// Nil to send the message of `template` with `parameters` now; else why it is not sent
    /// (logged, never shown to anyone).
    /// - Throws: anything transient (the database); the message is retried with backoff.
    func stopReason(template: String, parameters: [String: String]) async throws -> String?
}
