import Configuration
import Domain
import Foundation
import Integrations
import Lifecycle
import Mail
import Storage
import UseCases

/// The background workers `serve` runs, made from `Essentials` and the use cases and bound to
/// the wake-ups use cases send (`WorkerWakes`). No other command makes them.
public struct Workers: Sendable {
    public let outbox: OutboxWorker
    /// Delivers queued events to the endpoints.
    public let events: EventDeliveryWorker
    /// Deletes expired and finished rows in the background (`retention.*`).
    public let retention: RetentionWorker
    /// Runs the reconciler every `reconcile.interval_seconds`.
    public let reconcile: ReconcileWorker
    /// Sends the link-out reports owed to Apple and Google (API.md "Link-out compliance").
    public let linkOut: LinkOutReportWorker
    /// Queues reminder mails as they fall due (`redemption.reminders`).
    public let reminder: ReminderWorker
    /// Answers Apple's refund requests (`apple.consumption`).
    public let consumption: ConsumptionInformationWorker

    /// - Parameters:
    ///   - reconcile: the process's reconciler (its figures are `/metrics`').
    ///   - eventDelivery: how events are delivered (tests shorten the backoff).
    ///   - retention: how retention batches and paces its passes.
    ///   - linkOut: how the link-out report worker paces itself (tests shorten it).
    /// - Throws: a mail-setup error, `StartupError` for an External Purchase URL that cannot be parsed.
    public init(
        useCases: UseCaseFactory, reconcile: ReconcilePurchases, eventDelivery: EventDeliveryConfiguration = EventDeliveryConfiguration(),
        retention: RetentionWorker.Configuration = RetentionWorker.Configuration(),
        linkOut: LinkOutReportWorker.Configuration = LinkOutReportWorker.Configuration()
    ) throws {
        let essentials = useCases.essentials
        let (config, database, logger, now) = (essentials.config, essentials.database, essentials.logger, essentials.now)
        let outbox = try essentials.outboxWorker()
        self.outbox = outbox
        events = EventDeliveryWorker(
            database: database, endpoints: useCases.eventEndpoints,
            http: SocketHTTPClient(service: "events", maxResponseBytes: eventDelivery.maxResponseBytes),
            configuration: eventDelivery, logger: logger, now: now)
        self.retention = RetentionWorker(
            database: database, policy: Self.retentionPolicy(config), configuration: retention, logger: logger, now: now)
        self.reconcile = ReconcileWorker(reconcile: reconcile, interval: .seconds(config.reconcile.intervalSeconds))
        let senders = try LinkOutReportSenders.make(config: config, stores: essentials.stores)
        LinkOutReportSenders.warnUnconfigured(LinkOutPolicy(config.linkOut), senders: senders, logger: logger)
        self.linkOut = LinkOutReportWorker(
            database: database, senders: senders, vault: try useCases.linkOutVault, configuration: linkOut, logger: logger, now: now)
        reminder = ReminderWorker(database: database, schedule: useCases.reminders, mail: useCases.reminderMail, logger: logger, now: now)
        consumption = ConsumptionInformationWorker(
            database: database, client: essentials.stores.appStoreAPI, sampleContentProvided: config.apple.consumption.sampleContentProvided,
            logger: logger, now: now)
        let wakes = essentials.wakes
        wakes.bind(.mail) { Task { await outbox.wake() } }
        wakes.bind(.events) { [events] in events.wake() }
        wakes.bind(.linkOut) { [linkOut = self.linkOut] in linkOut.wake() }
        wakes.bind(.consumption) { [consumption] in consumption.wake() }
    }

    /// The workers in the order they start; they stop in the reverse order (`ServiceGroup`): the
    /// workers that queue mail and events before the outbox and event workers.
    public var all: [any Service] { [outbox, events, retention, reconcile, linkOut, reminder, consumption] }

    /// `retention.*` as the retention worker reads it; throttles live as long as the resend interval.
    static func retentionPolicy(_ config: TollgateConfig) -> Retention.Policy {
        Retention.Policy(
            sessionsDays: config.retention.sessionsDays, idempotencyDays: config.retention.idempotencyDays,
            mailDays: config.retention.mailDays, eventsDays: config.retention.eventsDays,
            webhookIDsDays: config.retention.webhookIDsDays, resendInterval: TimeInterval(config.redemption.resendIntervalSeconds))
    }
}
