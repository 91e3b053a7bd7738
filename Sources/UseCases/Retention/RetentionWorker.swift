import Domain
import Foundation
import Logging
import Mail
import Storage

/// Deletes what is past its age in the background (API.md "Data over time"): expired sessions
/// (the app's, the web's and the console's) and sign-in links, old `Idempotency-Key` replies,
/// finished mail, delivered events, old webhook ids and reminder unsubscribe tokens no reminder
/// needs any more. Every few minutes it makes a pass: for each table, batches of at most
/// `batchSize` rows, each in its own short write transaction, with a pause between batches so
/// requests get the writer, until the table is caught up. Runs in the service group.
public final class RetentionWorker: Sendable {
    /// How a pass runs.
    public struct Configuration: Sendable {
        /// Rows per batch (one write transaction).
        public var batchSize: Int
        /// Time between passes.
        public var interval: Duration
        /// Pause between batches.
        public var pause: Duration

        public init(batchSize: Int = 250, interval: Duration = .seconds(300), pause: Duration = .milliseconds(10)) {
            self.batchSize = batchSize
            self.interval = interval
            self.pause = pause
        }
    }

    /// The name mail rows have in `deleted` and in metrics.
    public static let mailTable = "mail_outbox"

    let database: Database
    let policy: Retention.Policy
    let configuration: Configuration
    let logger: Logger
    let now: @Sendable () -> Date
    /// What was deleted since start.
    public let stats = RetentionStats()
    private let loop = WorkLoop()

    public init(
        database: Database, policy: Retention.Policy, configuration: Configuration = Configuration(), logger: Logger,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.database = database
        self.policy = policy
        self.configuration = configuration
        self.logger = logger
        self.now = now
    }

    /// Passes until cancelled; the first comes right away.
    public func run() async {
        await loop.run(
            pass: {
                await sweep()
                return false
            }, sleep: { configuration.interval })
    }

    /// One pass over every table until each is caught up (or the task is cancelled). Returns
    /// the rows deleted per table; a failing table is logged and left for the next pass.
    @discardableResult
    public func sweep() async -> [String: Int] {
        let started = now()
        var deleted: [String: Int] = [:]
        for table in Retention.Table.allCases {
            let cutoff = policy.cutoff(table, now: started)
            deleted[table.rawValue] = await drain(table.rawValue) { connection, limit in
                try Retention.deleteBatch(table, before: cutoff, limit: limit, on: connection)
            }
        }
        let mailCutoff = policy.mailCutoff(now: started)
        deleted[Self.mailTable] = await drain(Self.mailTable) { connection, limit in
            try Outbox.deleteFinished(queuedBefore: mailCutoff, limit: limit, on: connection)
        }
        stats.passCompleted()
        let total = deleted.values.reduce(0, +)
        if total > 0 {
            logger.info("retention.pass", deleted.sorted { $0.key < $1.key }.map { ($0.key, .int($0.value)) })
        }
        return deleted
    }

    private func drain(_ table: String, batch: @escaping @Sendable (Connection, Int) throws -> Int) async -> Int {
        let limit = configuration.batchSize
        var total = 0
        while !Task.isCancelled {
            do {
                let (count, elapsed) = try await database.write { connection in
                    let clock = ContinuousClock()
                    let started = clock.now
                    let count = try batch(connection, limit)
                    return (count, clock.now - started)
                }
                stats.record(table: table, deleted: count, seconds: Self.seconds(elapsed))
                total += count
                if count < limit { break }
                try? await Task.sleep(for: configuration.pause)
            } catch {
                logger.error("retention.failed", [("table", .string(table)), ("error", .string("\(error)"))])
                break
            }
        }
        return total
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
