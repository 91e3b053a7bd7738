import Domain
import Foundation
import Integrations
import Logging
import Storage

/// Answers Apple's refund requests (`CONSUMPTION_REQUEST`, API.md "Refund requests to Apple"):
/// claims the queued answers (`ConsumptionRequestQueue`, `FOR UPDATE SKIP LOCKED`), and sends each
/// once with Send Consumption Information: `deliveryStatus` `DELIVERED` when the app claimed the
/// transaction's purchase, else `UNDELIVERED_OTHER`; `sampleContentProvided` as configured;
/// `customerConsented` true (the operator affirms it by turning the feature on). Apple's refusal
/// (4xx) fails the answer; an outage is retried with backoff until the 12-hour window closes.
public final class ConsumptionInformationWorker: Sendable {
    /// How the worker paces itself.
    public struct Configuration: Sendable {
        public var batch = 8
        public var lease: TimeInterval = 120
        public var idlePoll: Duration = .seconds(30)
        public var retry = EventRetryPolicy()

        public init() {}
    }

    let database: Database
    /// Nil without `apple.api`: answers wait (and fail when the window closes).
    let client: AppStoreServerAPIClient?
    let sampleContentProvided: Bool
    let configuration: Configuration
    let logger: Logger
    let now: @Sendable () -> Date
    private let loop = WorkLoop()

    public init(
        database: Database, client: AppStoreServerAPIClient?, sampleContentProvided: Bool, configuration: Configuration = Configuration(),
        logger: Logger = .disabled, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.database = database
        self.client = client
        self.sampleContentProvided = sampleContentProvided
        self.configuration = configuration
        self.logger = logger
        self.now = now
    }

    /// Sends until `stop()` or cancellation.
    public func run() async {
        await loop.run(pass: { await sendDue() > 0 }, sleep: { await sleepDuration() })
    }

    /// Makes `run()` return after the answers in flight are recorded.
    public func stop() { loop.stop() }

    /// Ends the sleep: an answer was queued.
    public func wake() { loop.wake() }

    /// Claims one batch of due answers and sends them; returns how many were claimed.
    @discardableResult
    public func sendDue() async -> Int {
        let (now, clock) = (self.now(), self.now)
        let (batch, lease) = (configuration.batch, configuration.lease)
        return await ClaimedWork.drain(
            database: database, logger: logger, event: "consumption", itemKey: "request", id: { $0.id },
            claim: { try ConsumptionRequestQueue.claim(limit: batch, lease: lease, on: $0, now: now) },
            handle: { await self.attempt($0) },
            record: { request, outcome, connection in try ConsumptionRequestQueue.record(request, outcome, on: connection, now: clock()) })
    }

    private func attempt(_ request: ConsumptionRequestQueue.Claimed) async -> ConsumptionRequestQueue.Outcome {
        let retryAt = configuration.retry.retryAt(afterAttempt: request.attempts, now: now(), deadline: request.deadline)
        guard let client else {
            let error = "apple.api is not configured: Send Consumption Information cannot be called"
            return retryAt.map { .retry(at: $0, error: error) } ?? .failed(error)
        }
        do {
            let delivered = try await database.read { connection in
                try ConsumptionRequestQueue.claimedByApp(
                    originalTransactionID: request.originalTransactionID, transactionID: request.transactionID, on: connection)
            }
            try await client.sendConsumptionInformation(
                transactionID: request.transactionID, deliveryStatus: delivered ? .delivered : .undeliveredOther,
                sampleContentProvided: sampleContentProvided,
                environment: AppStoreEnvironment(rawValue: request.environment) == .production ? .production : .sandbox)
            logger.info("consumption.sent", [("request", .string(request.id)), ("delivered", .bool(delivered))])
            return .sent
        } catch let error as AppStoreError {
            logger.error("consumption.refused", [("request", .string(request.id)), ("error", .string("\(error)"))])
            return .failed("\(error)")
        } catch {
            return retryAt.map { .retry(at: $0, error: "\(error)") } ?? .failed("\(error)")
        }
    }

    private func sleepDuration() async -> Duration {
        await WorkLoop.sleep(
            untilDue: { try await database.read { try ConsumptionRequestQueue.nextDue(on: $0) } }, now: now, atMost: configuration.idlePoll)
    }
}
