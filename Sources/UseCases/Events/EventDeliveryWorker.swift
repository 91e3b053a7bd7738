import Domain
import Foundation
import Integrations
import Logging
import Storage

/// Delivers queued events to the app's backend: one lane per endpoint, each keeping up to
/// `concurrency` signed POSTs in flight, so a slow or failing endpoint never holds back another,
/// and one failing event never holds back the others (it is rescheduled alone).
///
/// `run()` first returns deliveries left `sending` by a stopped process to `pending` (they are
/// sent again with the same `webhook-id`: receivers dedupe on it), then each lane claims due
/// deliveries (`EventStore.claim`), sends them, and records their outcomes (delivered; pending
/// with a backoff; failed past the deadline) in the same write as its next claim, when half its
/// slots are free. A lane with nothing due sleeps until the next
/// delivery is due, `wake()` (called by `EventQueue` when an event is queued) or `stop()`. A crash
/// anywhere loses nothing; a crash between an endpoint's 2xx and its recording (at most
/// `concurrency` deliveries, claimed or finished) sends those events again. Only one worker should run per SQLite database.
public final class EventDeliveryWorker: Sendable {
    private let database: Database
    private let endpoints: [EventEndpoint]
    private let http: any OutboundHTTPClient
    private let configuration: EventDeliveryConfiguration
    private let logger: Logger
    private let now: @Sendable () -> Date
    /// What was delivered so far (`/metrics`).
    public let stats: EventDeliveryStats
    private let signals: [String: WakeSignal]

    /// - Parameter http: a client that follows no redirect and caps bodies (`SocketHTTPClient`).
    public init(
        database: Database, endpoints: [EventEndpoint], http: any OutboundHTTPClient,
        configuration: EventDeliveryConfiguration = EventDeliveryConfiguration(), logger: Logger = .disabled,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.database = database
        self.endpoints = endpoints
        self.http = http
        self.configuration = configuration
        self.logger = logger
        self.now = now
        stats = EventDeliveryStats()
        signals = Dictionary(endpoints.map { ($0.id, WakeSignal()) }, uniquingKeysWith: { first, _ in first })
    }

    /// Recovers abandoned deliveries, then delivers until `stop()` or cancellation; deliveries in
    /// flight then finish (within the timeout) before it returns.
    public func run() async {
        do {
            let now = self.now()
            let known = endpoints.map(\.id)
            let (recovered, orphaned) = try await database.write { connection in
                (try EventStore.recoverAbandoned(on: connection, now: now), try EventStore.failOrphans(keeping: known, on: connection, now: now))
            }
            if recovered > 0 { logger.warning("events.recovered", [("count", .int(recovered))]) }
            if orphaned > 0 { logger.warning("events.endpoint_removed", [("failed", .int(orphaned))]) }
        } catch {
            logger.error("events.recover_failed", [("error", .string("\(error)"))])
        }
        guard !endpoints.isEmpty else { return }
        logger.info("events.started", [("endpoints", .int(endpoints.count)), ("concurrency", .int(configuration.concurrency))])
        await withTaskCancellationHandler {
            await withDiscardingTaskGroup { group in
                for endpoint in endpoints {
                    group.addTask { await self.lane(endpoint) }
                }
            }
        } onCancel: {
            stop()
        }
        logger.info("events.stopped")
    }

    /// Makes `run()` return once the deliveries in flight finish.
    public func stop() {
        for signal in signals.values { signal.stop() }
    }

    /// Ends every lane's sleep: events were queued just now.
    public func wake() {
        for signal in signals.values { signal.notify() }
    }

    // MARK: - One endpoint

    /// One attempt's outcome, waiting to be recorded with the lane's next claim.
    typealias Attempt = (deliveryID: String, outcome: EventStore.Outcome, latencyMS: Int)

    private func lane(_ endpoint: EventEndpoint) async {
        guard let signal = signals[endpoint.id] else { return }
        let limit = configuration.concurrency
        await withTaskGroup(of: Attempt.self) { group in
            var inFlight = 0
            var finished: [Attempt] = []
            while true {
                var claimed = 0
                // When half the slots are free: record what finished and fill them all, in one
                // write (a slow endpoint costs the writer a transaction per half-batch, not two
                // per event).
                if inFlight <= limit / 2 {
                    let batch = await recordAndClaim(finished, endpoint, limit: signal.isStopped ? 0 : limit - inFlight)
                    finished.removeAll()
                    claimed = batch.count
                    for delivery in batch {
                        group.addTask { await self.deliver(delivery, to: endpoint) }
                    }
                    inFlight += batch.count
                }
                if inFlight == 0 {
                    if signal.isStopped { break }
                    await signal.wait(upTo: await sleepDuration(endpoint))
                    continue
                }
                if claimed == 0 || inFlight > limit / 2 {
                    if let attempt = await group.next() { finished.append(attempt) }
                    inFlight -= 1
                }
            }
        }
    }

    /// Records `finished` and claims up to `limit` due deliveries, in one write transaction. A
    /// failed write leaves the finished ones `sending`: their lease sends them again, same id.
    private func recordAndClaim(_ finished: [Attempt], _ endpoint: EventEndpoint, limit: Int) async -> [EventStore.Claimed] {
        guard !finished.isEmpty || limit > 0 else { return [] }
        let now = self.now()
        let lease = configuration.lease
        do {
            // READ COMMITTED: a claim skips the rows other claimers hold (see `WriteIsolation`).
            return try await database.write(isolation: .readCommitted) { connection in
                try EventStore.record(finished, on: connection, now: now)
                return limit > 0 ? try EventStore.claim(endpointID: endpoint.id, limit: limit, lease: lease, on: connection, now: now) : []
            }
        } catch {
            logger.error(
                "events.claim_failed",
                [
                    ("endpoint", .string(endpoint.id)), ("unrecorded", .int(finished.count)), ("error", .string("\(error)"))
                ])
            return []
        }
    }

    private func sleepDuration(_ endpoint: EventEndpoint) async -> Duration {
        let poll = configuration.idlePoll
        do {
            guard let due = try await database.read({ try EventStore.nextDue(endpointID: endpoint.id, on: $0) }) else { return poll }
            let wait = Duration.milliseconds(max(0, Int64(due.timeIntervalSince(now()) * 1000)))
            return min(wait, poll)
        } catch {
            logger.error("events.read_failed", [("error", .string("\(error)"))])
            return poll
        }
    }

    // MARK: - One attempt

    /// Sends one delivery and returns its outcome for the lane to record.
    private func deliver(_ delivery: EventStore.Claimed, to endpoint: EventEndpoint) async -> Attempt {
        let started = ContinuousClock.now
        let attemptedAt = now()
        let body = Array(delivery.body.utf8)
        var outcome: EventStore.Outcome
        do {
            var headers = try endpoint.signer.headers(id: delivery.eventID, timestamp: Int(attemptedAt.timeIntervalSince1970), body: body)
            headers.append(("Content-Type", "application/json"))
            headers.append(("User-Agent", "Tollgate-Events/1"))
            let response = try await http.send(
                OutboundRequest(
                    method: "POST", url: endpoint.url, headers: headers, body: body, timeout: configuration.timeout))
            if (200..<300).contains(response.status) {
                outcome = .delivered(status: response.status)
            } else {
                outcome = failure(delivery, status: response.status, error: "HTTP \(response.status)")
            }
        } catch let error as UpstreamError {
            outcome = failure(delivery, status: nil, error: error.message)
        } catch {
            outcome = failure(delivery, status: nil, error: "\(type(of: error))")
        }
        let elapsed = started.duration(to: .now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let latency = Int(seconds * 1000)
        switch outcome {
        case .delivered:
            stats.record(endpointID: endpoint.id, delivered: true, gaveUp: false, seconds: seconds)
        case .failed(let status, let error, let retryAt):
            stats.record(endpointID: endpoint.id, delivered: false, gaveUp: retryAt == nil, seconds: seconds)
            logger.warning(
                "events.attempt_failed",
                [
                    ("event_id", .string(delivery.eventID)), ("endpoint", .string(endpoint.id)), ("attempt", .int(delivery.attempts)),
                    ("status", .int(status ?? 0)), ("error", .string(error)), ("gave_up", .bool(retryAt == nil))
                ])
        }
        return (deliveryID: delivery.id, outcome: outcome, latencyMS: latency)
    }

    private func failure(_ delivery: EventStore.Claimed, status: Int?, error: String) -> EventStore.Outcome {
        .failed(
            status: status, error: error,
            retryAt: configuration.retry.retryAt(afterAttempt: delivery.attempts, now: now(), deadline: delivery.deadline))
    }
}
