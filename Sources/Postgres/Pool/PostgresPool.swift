import Dispatch
import Foundation
import Logging

/// A bounded pool of `PostgresConnection`s shared by any number of threads and tasks.
///
/// A checkout takes an idle connection (most recently used first) or opens one while fewer than
/// `maxConnections` are open, else waits up to `checkoutTimeout`. Before handing out an idle
/// connection the pool drops it if the server has closed it (pending input: a terminated backend,
/// a restart), if it has been idle past `maxIdleTime`, or if it fails `SELECT 1` after
/// `healthCheckAfter`; a new one is opened in its place, so the pool recovers from a server
/// restart on the next checkout. On return, a broken connection is dropped and one left inside a
/// transaction is rolled back (dropped if that fails).
///
/// `@unchecked Sendable`: every mutable field is read and written only with `condition` locked,
/// and a connection is owned by exactly one caller between checkout and return.
public final class PostgresPool: @unchecked Sendable {
    /// Counts for metrics and tests.
    public struct Statistics: Sendable, Equatable {
        /// Connections open (idle plus checked out).
        public let open: Int
        /// Connections idle in the pool.
        public let idle: Int
        /// Callers waiting for a connection.
        public let waiting: Int
    }

    private struct IdleConnection {
        let connection: PostgresConnection
        let since: ContinuousClock.Instant
    }

    /// What the pool connects with.
    public let configuration: PostgresConfiguration
    /// Its size and checks.
    public let options: PostgresPoolOptions
    private let logger: Logger
    private let condition = NSCondition()
    private var idle: [IdleConnection] = []
    private var openCount = 0
    private var waiting = 0
    private var isClosed = false

    /// A pool that opens connections lazily, on the first checkouts.
    public init(configuration: PostgresConfiguration, options: PostgresPoolOptions = PostgresPoolOptions(), logger: Logger = .disabled) {
        self.configuration = configuration
        self.options = options
        self.logger = logger
    }

    deinit {
        for entry in idle { entry.connection.close() }
    }

    /// The pool's counts right now.
    public var statistics: Statistics {
        condition.lock()
        defer { condition.unlock() }
        return Statistics(open: openCount, idle: idle.count, waiting: waiting)
    }

    /// Runs `body` with a connection checked out for it on the calling thread (which blocks while
    /// waiting for one and while `body` runs), and returns it to the pool afterwards.
    /// - Throws: `PostgresError` (`.pool` when none became free within `checkoutTimeout`, or
    ///   connection errors), or what `body` throws.
    public func withConnection<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        let connection = try checkOut()
        defer { checkIn(connection) }
        return try body(connection)
    }

    /// Runs `body` in a transaction on a pooled connection (see `PostgresConnection.transaction`).
    /// - Throws: as `withConnection`, and what `body` throws (after the rollback).
    public func transaction<T>(_ beginStatement: String = "BEGIN", _ body: (PostgresConnection) throws -> T) throws -> T {
        try withConnection { try $0.transaction(beginStatement, body) }
    }

    /// Runs `body` in a transaction whose opening statements go out with its first statement (see
    /// `PostgresConnection.transaction(pipelining:_:)`), on a pooled connection.
    /// - Throws: as `withConnection`, and what `body` throws (after the rollback).
    public func transaction<T>(pipelining beginStatements: [String], _ body: (PostgresConnection) throws -> T) throws -> T {
        try withConnection { try $0.transaction(pipelining: beginStatements, body) }
    }

    /// `withConnection` for async callers: the checkout and `body` run on a thread of their own,
    /// never blocking Swift's cooperative pool.
    /// - Throws: as `withConnection`.
    public func withConnection<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        try await Self.offPool { try self.withConnection(body) }
    }

    /// `transaction` for async callers (see `withConnection(_:) async`).
    /// - Throws: as `transaction`.
    public func transaction<T: Sendable>(
        _ beginStatement: String = "BEGIN", _ body: @escaping @Sendable (PostgresConnection) throws -> T
    ) async throws -> T {
        try await Self.offPool { try self.transaction(beginStatement, body) }
    }

    /// Closes every idle connection and refuses later checkouts; checked-out connections are
    /// closed when they come back.
    public func close() {
        condition.lock()
        isClosed = true
        let closing = idle
        idle.removeAll()
        openCount -= closing.count
        condition.broadcast()
        condition.unlock()
        for entry in closing { entry.connection.close() }
    }

    // MARK: Checkout and return

    private func checkOut() throws -> PostgresConnection {
        let deadline = ContinuousClock.now + options.checkoutTimeout
        while true {
            let next = try reserve(until: deadline)
            switch next {
            case .reuse(let entry):
                if let reason = unusableReason(entry) {
                    logger.info("postgres.pool.discarded", [("reason", .string(reason))])
                    entry.connection.close()
                    release()
                    continue
                }
                return entry.connection
            case .open:
                do {
                    return try PostgresConnection(configuration: configuration, logger: logger)
                } catch {
                    release()
                    throw error
                }
            }
        }
    }

    private enum Reservation {
        case reuse(IdleConnection)
        case open
    }

    /// Under the lock: an idle connection, or a slot to open one, or a wait until `deadline`.
    private func reserve(until deadline: ContinuousClock.Instant) throws -> Reservation {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if isClosed { throw PostgresError(.pool, "the pool is closed") }
            if let entry = idle.popLast() { return .reuse(entry) }
            if openCount < options.maxConnections {
                openCount += 1
                return .open
            }
            let remaining = ContinuousClock.now.duration(to: deadline)
            if remaining <= .zero {
                throw PostgresError(.pool, "no connection became free within \(options.checkoutTimeout) (all \(options.maxConnections) in use)")
            }
            waiting += 1
            _ = condition.wait(until: Date(timeIntervalSinceNow: Self.seconds(remaining)))
            waiting -= 1
        }
    }

    /// Why an idle connection must not be handed out, or nil when it may.
    private func unusableReason(_ entry: IdleConnection) -> String? {
        let connection = entry.connection
        if connection.hasUnexpectedInput { return "closed by the server" }
        let idleFor = entry.since.duration(to: .now)
        if idleFor > options.maxIdleTime { return "idle too long" }
        if idleFor > options.healthCheckAfter {
            do {
                try connection.execute("SELECT 1")
            } catch {
                return "health check failed"
            }
        }
        return nil
    }

    private func checkIn(_ connection: PostgresConnection) {
        if !connection.isClosed, connection.transactionStatus != .idle || connection.hasDeferredStatements {
            // The caller left a transaction open (or failed): never hand that to the next one.
            do { try connection.rollback() } catch { connection.close() }
        }
        condition.lock()
        if connection.isClosed || isClosed {
            openCount -= 1
            condition.signal()
            condition.unlock()
            connection.close()
            return
        }
        idle.append(IdleConnection(connection: connection, since: .now))
        condition.signal()
        condition.unlock()
    }

    /// Gives back a slot whose connection was dropped or never opened.
    private func release() {
        condition.lock()
        openCount -= 1
        condition.signal()
        condition.unlock()
    }

    private static func seconds(_ duration: Duration) -> Double {
        let parts = duration.components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }

    /// Runs blocking work on a thread of its own (a serial queue runs on libdispatch's
    /// overcommitting pool, which adds a thread when none is idle) and awaits it.
    private static func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue(label: "tollgate.postgres.pool").async {
                continuation.resume(with: Result { try work() })
            }
        }
    }
}
