import Domain
import Foundation
import Integrations
import Logging
import Storage
import Synchronization

/// Sends the queued link-out reports (`LinkOutReportStore`) to Apple and Google.
///
/// `run()` first returns reports left `sending` by a stopped process to `pending` (SQLite; on
/// PostgreSQL the claim's lease does it), then claims due reports a batch at a time, sends each
/// with the sender of its platform, and records the outcome: sent; pending again after a backoff
/// for a retryable failure (an outage, 429, 5xx, missing credentials) until `deadline` after the
/// report was queued; failed for a refusal (`UpstreamError.report`: the report is unusable or the
/// platform refused it; an operator sees why in `tollgate admin reports`). Every
/// `unpurchasedInterval` it also queues the reports of Apple tokens that led to nothing
/// (`queueUnpurchased()`). A crash between the platform's answer and its recording sends that
/// report again with the same `request_id`, which the platforms treat as the same report.
public final class LinkOutReportWorker: Sendable {
    /// How the worker paces itself.
    public struct Configuration: Sendable {
        public var batch = 16
        public var lease: TimeInterval = 120
        public var idlePoll: Duration = .seconds(30)
        /// How long a report that keeps failing is retried before it is failed.
        public var deadline: TimeInterval = 30 * 86_400
        public var retry = EventRetryPolicy()
        /// How often Apple tokens that led to nothing are looked for (`queueUnpurchased()`).
        public var unpurchasedInterval: TimeInterval = 3600
        /// How many such tokens one look queues at most.
        public var unpurchasedBatch = 500

        public init() {}
    }

    let database: Database
    private let senders: [LinkOutPolicy.Reporting: any LinkOutReportSender]
    private let vault: LinkOutTokenVault
    let configuration: Configuration
    let logger: Logger
    let now: @Sendable () -> Date
    private let loop = WorkLoop()
    /// When `queueUnpurchased()` last ran.
    let lastUnpurchasedLook = Mutex<Date?>(nil)

    public init(
        database: Database, senders: [LinkOutPolicy.Reporting: any LinkOutReportSender], vault: LinkOutTokenVault,
        configuration: Configuration = Configuration(), logger: Logger = .disabled, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.database = database
        self.senders = senders
        self.vault = vault
        self.configuration = configuration
        self.logger = logger
        self.now = now
    }

    /// Recovers abandoned reports, then sends until `stop()` or cancellation.
    public func run() async {
        do {
            let now = self.now()
            let recovered = try await database.write { try LinkOutReportStore.recoverAbandoned(on: $0, now: now) }
            if recovered > 0 { logger.warning("link_out.recovered", [("count", .int(recovered))]) }
        } catch {
            logger.error("link_out.recover_failed", [("error", .string("\(error)"))])
        }
        await loop.run(
            pass: {
                await queueUnpurchasedIfDue()
                return await sendDue() > 0
            }, sleep: { await sleepDuration() })
    }

    /// Makes `run()` return after the report in flight.
    public func stop() { loop.stop() }

    /// Ends the worker's sleep: a report was queued.
    public func wake() { loop.wake() }

    /// Claims one batch of due reports and sends them; returns how many were claimed. A report
    /// whose outcome cannot be recorded stays `sending`: the lease sends it again, with the same
    /// request id.
    @discardableResult
    public func sendDue() async -> Int {
        let (now, clock) = (self.now(), self.now)
        let (batch, lease) = (configuration.batch, configuration.lease)
        return await ClaimedWork.drain(
            database: database, logger: logger, event: "link_out", itemKey: "report", id: { $0.id },
            claim: { try LinkOutReportStore.claim(limit: batch, lease: lease, on: $0, now: now) },
            handle: { await self.attempt($0) },
            record: { report, outcome, connection in try LinkOutReportStore.record(report.id, outcome, on: connection, now: clock()) })
    }

    private func attempt(_ report: LinkOutReportStore.Claimed) async -> LinkOutReportStore.Outcome {
        guard let sender = senders[report.reporting] else {
            return failure(report, error: "reporting to \(report.reporting.rawValue) is not configured", retryable: true)
        }
        do {
            let context = try await database.read { connection in try self.context(of: report, on: connection) }
            try await sender.send(report, context)
            logger.info(
                "link_out.sent",
                [
                    ("report", .string(report.id)), ("platform", .string(report.reporting.rawValue)), ("kind", .string(report.kind.rawValue))
                ])
            return .sent
        } catch let error as UpstreamError {
            // A refused report is shown whole (who refused, status, code, field errors).
            return failure(report, error: error.reportError != nil ? error.description : error.message, retryable: error.retryable)
        } catch let waiting as Waiting {
            return failure(report, error: waiting.description, retryable: true)
        } catch {
            return failure(report, error: "\(error)", retryable: true)
        }
    }

    /// The report's token and the reports it builds on. A renewal or a refund waits (a
    /// retryable error) until the payment reports it names were accepted: Google refuses a
    /// renewal or refund of a transaction it does not have.
    private func context(of report: LinkOutReportStore.Claimed, on connection: Connection) throws -> LinkOutReportContext {
        guard let record = try LinkOutTokenRepository.find(id: report.tokenID, on: connection) else {
            throw DomainError(.notFound, "no link-out token \(report.tokenID)")
        }
        let token = try LinkOutTokenRepository.open(record, vault: vault, on: connection)
        var first: String?
        var firstLine: String?
        var refunded: String?
        if let purchaseID = report.purchaseID, report.kind != .purchase {
            let payment = try LinkOutReportStore.firstPayment(purchaseID: purchaseID, on: connection)
            try Self.requireSent(payment?.status, of: report, what: "the purchase's first payment report")
            first = payment?.requestID
            firstLine = try payment.flatMap { try LinkOutReportStore.lines(naturalKey: $0.naturalKey, on: connection)?.first?.lineID }
            if report.kind == .refund, let paidLine = report.lines.first?.referenceLineID {
                let paid = try LinkOutReportStore.payment(purchaseID: purchaseID, lineID: paidLine, on: connection)
                try Self.requireSent(paid?.status, of: report, what: "the report of the payment it refunds")
                refunded = paid?.requestID
            }
        }
        return LinkOutReportContext(
            token: token, tokenRecord: record, firstPaymentRequestID: first, refundedRequestID: refunded, firstPaymentLineID: firstLine)
    }

    /// A report that must wait for another to be accepted first (retried later).
    struct Waiting: Error, CustomStringConvertible {
        let description: String
    }

    /// Throws `Waiting` unless `status` is `sent`.
    private static func requireSent(_ status: String?, of report: LinkOutReportStore.Claimed, what: String) throws {
        guard status != "sent" else { return }
        throw Waiting(description: "waiting: \(what) is \(status ?? "missing"), not sent yet")
    }

    private func failure(_ report: LinkOutReportStore.Claimed, error: String, retryable: Bool) -> LinkOutReportStore.Outcome {
        let now = self.now()
        let retryAt =
            retryable
            ? configuration.retry.retryAt(
                afterAttempt: report.attempts, now: now, deadline: report.createdAt.addingTimeInterval(configuration.deadline))
            : nil
        logger.warning(
            "link_out.attempt_failed",
            [
                ("report", .string(report.id)), ("platform", .string(report.reporting.rawValue)), ("attempt", .int(report.attempts)),
                ("error", .string(error)), ("gave_up", .bool(retryAt == nil))
            ])
        return .failed(error: error, retryAt: retryAt)
    }

    private func sleepDuration() async -> Duration {
        await WorkLoop.sleep(
            untilDue: { try await database.read { try LinkOutReportStore.nextDue(on: $0) } }, now: now, atMost: configuration.idlePoll)
    }
}
