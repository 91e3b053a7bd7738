import Foundation
import Logging
import Mail
import Storage
import Synchronization
import Templating
import TestSupport

/// A fresh temporary directory per test, removed when the test process exits (the suites'
/// databases stay open until then, so no test removes its own).
func makeTemporaryDirectory() throws -> String {
    let path = NSTemporaryDirectory() + "mail-tests-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    TemporaryDirectories.shared.add(path)
    return path
}

/// The directories `makeTemporaryDirectory` made, removed at exit.
private final class TemporaryDirectories: Sendable {
    static let shared = TemporaryDirectories()
    private let paths = Mutex<[String]>([])

    private init() {
        atexit { TemporaryDirectories.shared.removeAll() }
    }

    func add(_ path: String) { paths.withLock { $0.append(path) } }

    private func removeAll() {
        for path in paths.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: path) }
    }
}

/// A fresh migrated database in a temporary directory.
func makeDatabase() throws -> Database {
    let database = try TestDatabaseBackend.make(sqlitePath: try makeTemporaryDirectory() + "/test.sqlite", readers: 2)
    _ = try Migrator(migrations: MailMigrations.all).migrate(database)
    return database
}

/// The repository's `templates/` folder.
let templatesDirectory: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<4 { url.deleteLastPathComponent() }  // Support, MailTests, Tests, repository
    return url.path + "/templates"
}()

/// The real email templates with a fixed sender.
func makeComposer() throws -> MailComposer {
    MailComposer(
        templates: try LocalizedTemplates(directory: templatesDirectory),
        from: try MailAddress("noreply@tollgate.test", displayName: "Tollgate Demo"), appName: "Tollgate Demo")
}

/// A clock the test moves by hand.
final class TestClock: Sendable {
    private let current: Mutex<Date>

    init(_ start: Date = Date(timeIntervalSince1970: 1_750_000_000)) {
        current = Mutex(start)
    }

    var now: Date { current.withLock { $0 } }

    func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }

    var function: @Sendable () -> Date { { self.now } }
}

/// A transport that records messages and fails as scripted.
final class RecordingTransport: MailTransport {
    private let state = Mutex<(sent: [MailMessage], failures: [MailError])>(([], []))

    /// The next sends fail with these errors, in order; later ones succeed.
    func failNext(_ errors: [MailError]) {
        state.withLock { $0.failures += errors }
    }

    var sent: [MailMessage] { state.withLock { $0.sent } }

    func send(_ message: MailMessage) async throws {
        _ = try message.rendered()
        let failure: MailError? = state.withLock { state in
            if state.failures.isEmpty {
                state.sent.append(message)
                return nil
            }
            return state.failures.removeFirst()
        }
        if let failure { throw failure }
    }
}

/// A redemption-code message for `recipient`.
func redemptionMessage(key: String, recipient: String = "jane@example.com", code: String = "K7QM-4XPD-9RTW") -> OutboxMessage {
    OutboxMessage(
        idempotencyKey: key, template: "redemption_code", recipient: recipient, recipientName: "Jane Doe",
        parameters: [
            "code": code, "product_name": "Pro Pack", "redeem_url": "https://tollgate.test/redeem?code=\(code)&x=1",
            "expiry_text": "30 June 2026"
        ])
}

/// Enqueues `message` in its own write transaction.
@discardableResult
func enqueue(_ message: OutboxMessage, into database: Database, at date: Date) async throws -> EnqueueResult {
    try await database.write { connection in
        try Outbox.enqueue(message, on: connection, now: date)
    }
}

/// A worker with no jitter, so the schedule is exact.
func makeWorker(
    _ database: Database, transport: any MailTransport, clock: TestClock, jitter: Double = 0, logger: Logger = .disabled
) throws -> OutboxWorker {
    OutboxWorker(
        database: database, transport: transport, composer: try makeComposer(),
        configuration: OutboxWorkerConfiguration(retryPolicy: OutboxRetryPolicy(jitter: jitter)), logger: logger,
        now: clock.function)
}

/// What a restarted worker does about a message a crashed process left `sending`: on SQLite (one
/// process, the only sender) `recoverAbandoned` returns it at start; on PostgreSQL another
/// instance may be sending it right now, so it stays until its lease runs out. Returns how many
/// the start recovered; afterwards the message is due either way.
func recoverAfterCrash(_ worker: OutboxWorker, database: Database, clock: TestClock) async throws -> Int {
    let recovered = try await worker.recoverAbandoned()
    if database.dialect == .postgresql {
        clock.advance(by: 46)  // past the 45-second lease
    }
    return recovered
}
