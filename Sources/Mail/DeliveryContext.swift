import Domain
import Foundation
import Logging
import Storage

/// Everything one delivery needs, copied out of the worker so deliveries run concurrently
/// outside the actor.
struct DeliveryContext: Sendable {
    let database: Database
    let transport: any MailTransport
    let composer: MailComposer
    let policy: OutboxRetryPolicy
    let cipher: OutboxCipher?
    var sendCheck: (any OutboxSendCheck)? = nil
    let logger: Logger
    let now: @Sendable () -> Date

    /// Renders, sends and records the outcome of one claimed message. Never throws: a failure to
    /// record leaves the row `sending`, to be retried after the lease.
    func deliver(_ message: ClaimedMessage) async {
        let log = logger.with([
            ("outbox_id", .string(message.id)), ("template", .string(message.template)),
            ("to", .string(EmailMask.mask(message.recipient))), ("attempt", .int(message.attempts))
        ])
        let outcome: Result<Void, MailError>
        do {
            let parameters = try message.parameters(cipher: cipher)
            if let sendCheck {
                let reason: String?
                do {
                    reason = try await sendCheck.stopReason(template: message.template, parameters: parameters)
                } catch {
                    throw MailError.transient("the send check failed: \(error)")
                }
                if let reason {
                    await drop(message, reason: reason, log: log)
                    return
                }
            }
            let mail = try composer.compose(
                outboxID: message.id, template: message.template, recipient: message.recipient,
                recipientName: message.recipientName, parameters: parameters,
                messageID: message.messageID, date: now())
            try await transport.send(mail)
            outcome = .success(())
        } catch let error as MailError {
            outcome = .failure(error)
        } catch {
            // Template rendering errors and anything unexpected: retrying will not change them.
            outcome = .failure(MailError.permanent("\(error)"))
        }
        do {
            try await record(outcome, for: message, log: log)
        } catch {
            log.error("mail.outbox.record_failed", [("error", .string("\(error)"))])
        }
    }

    /// Removes a message its send check stopped: it never becomes mail.
    private func drop(_ message: ClaimedMessage, reason: String, log: Logger) async {
        do {
            _ = try await database.write { connection in
                try connection.run("DELETE FROM mail_outbox WHERE id = ? AND status = 'sending'", [message.id])
            }
            log.info("mail.not_sent", [("reason", .string(reason))])
        } catch {
            log.error("mail.outbox.record_failed", [("error", .string("\(error)"))])
        }
    }

    private func record(_ outcome: Result<Void, MailError>, for message: ClaimedMessage, log: Logger) async throws {
        let date = now()
        let timestamp = OutboxID.milliseconds(date)
        switch outcome {
        case .success:
            _ = try await database.write { connection in
                try connection.run(
                    """
                    UPDATE mail_outbox SET status = 'sent', sent_at = ?, updated_at = ?, last_error = NULL
                    WHERE id = ? AND status = 'sending'
                    """,
                    [timestamp, timestamp, message.id])
            }
            log.info("mail.sent", [("message_id", .string(message.messageID))])
        case .failure(let error) where error.isPermanent:
            try await markFailed(message, reason: error.message, timestamp: timestamp)
            log.error("mail.failed", [("error", .string(error.message))])
        case .failure(let error):
            guard let next = policy.nextAttempt(afterAttempt: message.attempts, at: date, createdAt: message.createdAt) else {
                let reason = "gave up after \(message.attempts) attempts: \(error.message)"
                try await markFailed(message, reason: reason, timestamp: timestamp)
                log.error("mail.failed", [("error", .string(reason))])
                return
            }
            let nextMilliseconds = OutboxID.milliseconds(next)
            _ = try await database.write { connection in
                try connection.run(
                    """
                    UPDATE mail_outbox SET status = 'pending', next_attempt_at = ?, last_error = ?, updated_at = ?
                    WHERE id = ? AND status = 'sending'
                    """,
                    [nextMilliseconds, error.message, timestamp, message.id])
            }
            log.warning("mail.retry", [("error", .string(error.message)), ("next_attempt_in_ms", .int(Int(nextMilliseconds - timestamp)))])
        }
    }

    private func markFailed(_ message: ClaimedMessage, reason: String, timestamp: Int64) async throws {
        _ = try await database.write { connection in
            try connection.run(
                "UPDATE mail_outbox SET status = 'failed', last_error = ?, updated_at = ? WHERE id = ? AND status = 'sending'",
                [reason, timestamp, message.id])
        }
    }
}
