import Foundation
import Storage
import Testing
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `tollgate serve` stops in the reverse order of its start (issue 46): on SIGTERM the HTTP server
/// stops taking requests and drains first, then each worker finishes what it claimed and stops
/// (the workers that queue mail and events before the outbox and event workers), and the database
/// closes last.
@Suite("Shutdown order")
struct ShutdownOrderTests {
    @Test("SIGTERM while an event is in flight: server stops, the delivery finishes and is recorded, the outbox stops after it, the database last")
    func reverseStartOrder() async throws {
        // Every answer takes 1.5 s, so the SIGTERM lands while the event worker holds its claim.
        let receiver = try FakeEventReceiver(secret: EventsCrashTests.secret) { _ in (200, .milliseconds(1500)) }
        defer { Task { await receiver.stop() } }
        let directory = try TemporaryDirectory()
        let file = try directory.writeConfig(["events": ["endpoints": [["url": receiver.url, "secret": EventsCrashTests.secret]]]])
        let ids = try EventsCrashTests.seed(file, count: 1)

        let (child, _) = try await ServeTests.startServer(["serve", "--config", file])
        #expect(await receiver.wait { $0.count == 1 }, "delivery did not start")
        kill(child.pid, SIGTERM)
        let result = try await child.finish()
        #expect(result.status == 0, "\(result.stderr)")

        let events = result.stderr.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["event"] as? String
        }
        func position(_ event: String) -> Int { events.firstIndex(of: event) ?? -1 }
        let order = ["signal", "http_server_stopped", "events.stopped", "mail.outbox.stopped", "stopped"].map(position)
        #expect(!order.contains(-1), "a line is missing: \(events)")
        #expect(order == order.sorted(), "stopped out of order: \(events)")

        // The claim in flight at SIGTERM was answered and recorded before the database closed.
        let database = try SQLiteDatabase(path: directory.path + "/db/tollgate.sqlite", readers: 1)
        defer { database.close() }
        let rows = try database.readSync { try $0.query("SELECT event_id, status, attempts FROM event_deliveries") }
        #expect(try rows.map { try $0.string("event_id") } == ids)
        #expect(try rows.map { try $0.string("status") } == ["delivered"])
        #expect(try rows.map { try $0.int("attempts") } == [1])
    }
}
