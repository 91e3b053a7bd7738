import Domain
import Foundation
import Logging
import Storage

/// Queues reminder mails as they fall due (`redemption.reminders`, API.md "Every buyer brought
/// in"): every `poll` (or sooner, when the next one is due) it claims the journeys whose next
/// reminder is due, `FOR UPDATE SKIP LOCKED` on PostgreSQL so two instances never take the same
/// one, and in the same transaction queues the reminder `ReminderSchedule` picks (through the
/// outbox, once each: the mail's idempotency key names purchase and reminder) and moves the
/// journey on. A purchase that can no longer be reminded leaves the due index. Whether the mail
/// really leaves is decided again at the outbox (`ReminderGate`).
public final class ReminderWorker: Sendable {
    /// How the worker paces itself.
    public struct Configuration: Sendable {
        /// Journeys claimed per transaction.
        public var batch = 32
        /// The longest sleep between looks (due reminders leave within 5 s).
        public var poll: Duration = .seconds(2)

        public init() {}
    }

    let database: Database
    let schedule: ReminderSchedule
    let mail: ReminderMail
    let configuration: Configuration
    let logger: Logger
    let now: @Sendable () -> Date
    private let loop = WorkLoop()

    public init(
        database: Database, schedule: ReminderSchedule, mail: ReminderMail, configuration: Configuration = Configuration(),
        logger: Logger = .disabled, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.database = database
        self.schedule = schedule
        self.mail = mail
        self.configuration = configuration
        self.logger = logger
        self.now = now
    }

    /// Queues due reminders until `stop()` or cancellation; returns at once when reminders are off.
    public func run() async {
        guard schedule.isOn else { return }
        await loop.run(pass: { await runOnce() >= configuration.batch }, sleep: { await sleepDuration() })
    }

    /// Makes `run()` return after the batch in progress.
    public func stop() { loop.stop() }

    /// Handles one batch of due journeys; returns how many were claimed. (Tests call it with
    /// their clock moved.)
    @discardableResult
    public func runOnce() async -> Int {
        let now = self.now()
        let (schedule, mail, batch) = (self.schedule, self.mail, configuration.batch)
        do {
            // READ COMMITTED: the claim skips the journeys another instance holds (as the outbox does).
            let (claimed, queued) = try await database.write(isolation: .readCommitted) { connection -> (Int, Int) in
                let due = try BuyerJourneyRepository.claimDue(limit: batch, on: connection, now: now)
                var queued = 0
                for journey in due {
                    if try ReminderEligibility.check(purchaseID: journey.purchaseID, on: connection, now: now) != nil {
                        try BuyerJourneyRepository.stopReminders(purchaseID: journey.purchaseID, unsubscribed: false, on: connection, now: now)
                        continue
                    }
                    let decision = schedule.decide(step: journey.step, paidAt: journey.paidAt, now: now)
                    if let index = decision.send, let purchase = try PurchaseRepository.find(id: journey.purchaseID, on: connection),
                        try mail.queue(reminder: index, purchase: purchase, on: connection, now: now)
                    {
                        queued += 1
                    }
                    try BuyerJourneyRepository.advance(
                        purchaseID: journey.purchaseID, step: decision.nextStep, due: decision.nextDue, on: connection)
                }
                return (due.count, queued)
            }
            if queued > 0 {
                mail.queued()
                logger.info("reminders.queued", [("count", .int(queued))])
            }
            return claimed
        } catch {
            logger.error("reminders.failed", [("error", .string("\(error)"))])
            return 0
        }
    }

    private func sleepDuration() async -> Duration {
        await WorkLoop.sleep(
            untilDue: { try await database.read { try BuyerJourneyRepository.nextDue(on: $0) } }, now: now, atMost: configuration.poll)
    }
}
