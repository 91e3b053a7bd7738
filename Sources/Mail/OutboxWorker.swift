import Foundation
import Logging
import Storage

/// Delivers due outbox messages in the background.
///
/// `run()` first returns every message left `sending` by a previous process to `pending` (the
/// process crashed mid-delivery), then loops until `stop()`: claim up to `concurrency` due
/// messages (status `sending`, attempts + 1, in one write transaction), render and deliver them
/// concurrently, record each outcome (`sent`; `pending` with a backoff after a transient failure;
/// `failed` after a permanent one or after retrying for `giveUpAfter`), and sleep until the next
/// message is due, the poll interval passes, or `wake()` is called. A message `sending` for longer
/// than the lease is claimed again too. A crash between the transport accepting a message and the
/// row being marked `sent` repeats that message once, with the same Message-ID; a crash anywhere
/// else loses nothing. Only one worker should run per database.
///
/// It only touches the database through `Database.write` / `read` (async), so request handling
/// is never blocked; SMTP runs on its own threads.
public actor OutboxWorker {
    private let database: Database
    private let transport: any MailTransport
    private let composer: MailComposer
    private let configuration: OutboxWorkerConfiguration
    private let logger: Logger
    private let now: @Sendable () -> Date

    private var stopped = false
    private var wakeRequested = false
    private var waiter: (token: Int, continuation: CheckedContinuation<Void, Never>)?
    private var nextToken = 0

    /// A worker delivering through `transport`; `now` is the clock (injected for tests).
    public init(
        database: Database, transport: any MailTransport, composer: MailComposer,
        configuration: OutboxWorkerConfiguration = OutboxWorkerConfiguration(), logger: Logger = .disabled,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.database = database
        self.transport = transport
        self.composer = composer
        self.configuration = configuration
        self.logger = logger
        self.now = now
    }

    /// Recovers abandoned deliveries, then delivers until `stop()` is called or the task is cancelled.
    public func run() async {
        do {
            let recovered = try await recoverAbandoned()
            if recovered > 0 { logger.warning("mail.outbox.recovered", [("count", .int(recovered))]) }
        } catch {
            logger.error("mail.outbox.recover_failed", [("error", .string("\(error)"))])
        }
        logger.info("mail.outbox.started", [("concurrency", .int(configuration.concurrency))])
        while !stopped && !Task.isCancelled {
            await runOnce()
            if stopped || Task.isCancelled { break }
            await pause(for: await sleepDuration())
        }
        logger.info("mail.outbox.stopped")
    }

    /// Makes `run()` return after the deliveries in progress (or right away when it starts later).
    public func stop() {
        stopped = true
        resumeWaiter()
    }

    /// Ends the current sleep so messages enqueued just now go out promptly.
    public func wake() {
        if waiter == nil { wakeRequested = true }
        resumeWaiter()
    }

    /// Delivers every message due now, in batches of `concurrency`, and returns how many
    /// deliveries were attempted. (`run()` calls this; tests call it directly.)
    @discardableResult
    public func runOnce() async -> Int {
        var attempted = 0
        while !stopped {
            let batch: [ClaimedMessage]
            do {
                batch = try await claim()
            } catch {
                logger.error("mail.outbox.claim_failed", [("error", .string("\(error)"))])
                break
            }
            if batch.isEmpty { break }
            attempted += batch.count
            let context = DeliveryContext(
                database: database, transport: transport, composer: composer,
                policy: configuration.retryPolicy, cipher: configuration.cipher, sendCheck: configuration.sendCheck, logger: logger, now: now)
            await withTaskGroup(of: Void.self) { group in
                for message in batch {
                    group.addTask { await context.deliver(message) }
                }
            }
        }
        return attempted
    }

    /// Returns every `sending` message to `pending` (they were abandoned by a stopped process).
    /// `run()` does this first; returns how many were recovered. Only on SQLite, whose one process
    /// is the only sender: on PostgreSQL another instance may be sending them right now, and
    /// the lease returns what a dead instance left.
    /// - Throws: `StorageError`.
    @discardableResult
    public func recoverAbandoned() async throws -> Int {
        let timestamp = OutboxID.milliseconds(now())
        return try await database.write { connection in
            guard connection.dialect == .sqlite else { return 0 }
            return try connection.run("UPDATE mail_outbox SET status = 'pending', updated_at = ? WHERE status = 'sending'", [timestamp])
        }
    }

    // MARK: - Claiming

    private func claim() async throws -> [ClaimedMessage] {
        let timestamp = OutboxID.milliseconds(now())
        let leaseExpired = timestamp - Int64(configuration.lease.milliseconds)
        let limit = configuration.concurrency
        // READ COMMITTED: a claim skips the rows other claimers hold (see `WriteIsolation`).
        return try await database.write(isolation: .readCommitted) { connection in
            let rows = try connection.query(
                """
                UPDATE mail_outbox SET status = 'sending', attempts = attempts + 1, updated_at = ?
                WHERE id IN (
                    SELECT id FROM mail_outbox
                    WHERE (status = 'pending' AND next_attempt_at <= ?) OR (status = 'sending' AND updated_at <= ?)
                    ORDER BY next_attempt_at, id LIMIT ?\(connection.dialect.skipLockedClause))
                RETURNING id, template, recipient, recipient_name, parameters, attempts, message_id, created_at
                """,
                [timestamp, timestamp, leaseExpired, limit])
            return try rows.map(ClaimedMessage.init(row:))
        }
    }

    // MARK: - Sleeping

    private func sleepDuration() async -> Duration {
        let poll = configuration.pollInterval
        do {
            let next = try await database.read { connection in
                try connection.queryOne("SELECT MIN(next_attempt_at) AS due FROM mail_outbox WHERE status = 'pending'")?
                    .optionalInt64("due")
            }
            guard let next else { return poll }
            let wait = Duration.milliseconds(max(0, next - OutboxID.milliseconds(now())))
            return min(wait, poll)
        } catch {
            logger.error("mail.outbox.read_failed", [("error", .string("\(error)"))])
            return poll
        }
    }

    private func pause(for duration: Duration) async {
        if wakeRequested || stopped {
            wakeRequested = false
            return
        }
        nextToken += 1
        let token = nextToken
        let timer = Task { [weak self] in
            try? await Task.sleep(for: duration)
            await self?.timerFired(token)
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                waiter = (token, continuation)
            }
        } onCancel: {
            Task { [weak self] in await self?.stop() }
        }
        timer.cancel()
        wakeRequested = false
    }

    private func timerFired(_ token: Int) {
        guard waiter?.token == token else { return }
        resumeWaiter()
    }

    private func resumeWaiter() {
        guard let current = waiter else { return }
        waiter = nil
        current.continuation.resume()
    }
}
