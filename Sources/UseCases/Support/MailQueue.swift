import Foundation
import Mail
import Storage

/// Queues email in the caller's transaction (the outbox, parameters sealed) and wakes the
/// delivery worker once that transaction has committed.
public struct MailQueue: Sendable {
    let cipher: OutboxCipher
    let messageIDDomain: String
    let now: @Sendable () -> Date
    let wake: @Sendable () -> Void

    /// - Parameter wake: called after a transaction that queued mail committed (wakes the worker).
    public init(cipher: OutboxCipher, messageIDDomain: String, now: @escaping @Sendable () -> Date, wake: @escaping @Sendable () -> Void) {
        self.cipher = cipher
        self.messageIDDomain = messageIDDomain
        self.now = now
        self.wake = wake
    }

    /// Queues one email; a repeat of `key` queues nothing.
    /// - Throws: `MailError` for an invalid message, `StorageError`.
    @discardableResult
    public func enqueue(
        key: String, template: String, to recipient: String, parameters: [String: String], on connection: Connection
    ) throws -> EnqueueResult {
        try Outbox.enqueue(
            OutboxMessage(idempotencyKey: key, template: template, recipient: recipient, parameters: parameters),
            on: connection, now: now(), messageIDDomain: messageIDDomain, cipher: cipher)
    }

    /// Call after the transaction that queued mail has committed.
    public func queued() { wake() }
}
