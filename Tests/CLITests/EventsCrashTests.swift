import App
import Configuration
import Domain
import Foundation
import Logging
import Storage
import Synchronization
import Testing
import TestSupport

/// Events survive `kill -9` of `tollgate serve` mid-delivery, and the operator commands work
/// on the same database.
@Suite("Events to the app's backend, across processes")
struct EventsCrashTests {
    static let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

    /// Queues `count` events in the service's database (as a flow would) and returns their ids.
    static func seed(_ file: String, count: Int) throws -> [String] {
        let config = try ConfigLoader.load(path: file, environment: [:])
        let app = try TollgateApp(config: config, logger: .disabled)
        defer { app.database.close() }
        return try app.database.writeSync { connection in
            try (0..<count).map { index in
                try app.useCases.events.record(
                    .accountCreated, accountID: "acc_seed_\(index % 7)", scope: "account:acc_seed_\(index % 7)",
                    data: ["account_id": .string("acc_seed_\(index % 7)"), "n": .integer(Int64(index))], on: connection, now: Date()) ?? ""
            }
        }
    }

    @Test("kill -9 mid-delivery loses nothing; only what was in flight is sent again, with its id")
    func killMidDelivery() async throws {
        // Past the first 60 answers the receiver slows to 30 s each until the kill, so the kill
        // always lands mid-delivery however the machine schedules this test (at 2 s each, a full
        // parallel run once starved the test past the last of 300); then it is quick.
        let killed = Atomic<Bool>(false)
        let receiver = try FakeEventReceiver(secret: Self.secret) { index in
            (200, index < 60 || killed.load(ordering: .relaxed) ? .milliseconds(20) : .seconds(30))
        }
        defer { Task { await receiver.stop() } }
        let directory = try TemporaryDirectory()
        let file = try directory.writeConfig(["events": ["endpoints": [["url": receiver.url, "secret": Self.secret]]]])
        let ids = try Self.seed(file, count: 300)
        #expect(Set(ids).count == 300)

        let (first, _) = try await ServeTests.startServer(["serve", "--config", file])
        #expect(await receiver.wait { $0.count >= 60 }, "delivery did not start")
        kill(first.pid, SIGKILL)
        #expect(try await first.finish().status == SIGKILL)
        killed.store(true, ordering: .relaxed)
        let database = try SQLiteDatabase(path: directory.path + "/db/tollgate.sqlite", readers: 1)
        let (deliveredBefore, inFlightAtKill) = try database.readSync { connection in
            (
                Set(try connection.query("SELECT event_id FROM event_deliveries WHERE status = 'delivered'").map { try $0.string("event_id") }),
                try connection.queryOne("SELECT count(*) AS n FROM event_deliveries WHERE status = 'sending'")?.int("n") ?? 0
            )
        }
        database.close()
        #expect(deliveredBefore.count < 300, "the kill came too late to test anything")
        #expect(inFlightAtKill <= 16, "more claimed than the endpoint's concurrency: \(inFlightAtKill)")

        let (second, _) = try await ServeTests.startServer(["serve", "--config", file])
        #expect(await receiver.wait(timeout: .seconds(60)) { Set($0.map(\.webhookID)) == Set(ids) }, "an event was lost")
        try await Task.sleep(for: .milliseconds(300))
        kill(second.pid, SIGTERM)
        #expect(try await second.finish().status == 0)

        let received = receiver.received
        #expect(received.allSatisfy { $0.verified })
        var counts: [String: Int] = [:]
        for request in received { counts[request.webhookID, default: 0] += 1 }
        let repeated = Set(counts.filter { $0.value > 1 }.keys)
        #expect(repeated.isDisjoint(with: deliveredBefore), "an event recorded as delivered was sent again")
        // Each send is a recorded claim: the in-flight window at the kill, plus any attempt that
        // timed out on a busy machine (retried, as at-least-once delivery must), never more.
        let check = try SQLiteDatabase(path: directory.path + "/db/tollgate.sqlite", readers: 1)
        let attempts = try check.readSync { connection in
            Dictionary(
                uniqueKeysWithValues: try connection.query("SELECT event_id, attempts FROM event_deliveries").map {
                    (try $0.string("event_id"), try $0.int("attempts"))
                })
        }
        check.close()
        for (id, sent) in counts {
            #expect(sent <= attempts[id] ?? 0, "\(id) was sent \(sent) times for \(attempts[id] ?? 0) recorded attempts")
        }

        let listing = try await ChildProcess.run("tollgate", ["admin", "events", "--status", "delivered", "--limit", "1000", "--config", file])
        #expect(listing.status == 0)
        #expect(listing.stdout.contains("300 delivery(ies)"))
        let pending = try await ChildProcess.run("tollgate", ["admin", "events", "--status", "pending", "--config", file])
        #expect(pending.stdout.contains("0 delivery(ies)"))
        let bad = try await ChildProcess.run("tollgate", ["admin", "events", "--status", "lost", "--config", file])
        #expect(bad.status == 64)
    }

    @Test("events test sends a signed test event to each endpoint and prints its answer")
    func eventsTest() async throws {
        let receiver = try FakeEventReceiver(secret: Self.secret)
        defer { Task { await receiver.stop() } }
        let failing = try FakeEventReceiver(secret: Self.secret) { _ in (500, .zero) }
        defer { Task { await failing.stop() } }
        let directory = try TemporaryDirectory()
        let file = try directory.writeConfig(["events": ["endpoints": [["url": receiver.url, "secret": Self.secret]]]])
        let ok = try await ChildProcess.run("tollgate", ["events", "test", "--config", file])
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(ok.stdout.contains(receiver.url) && ok.stdout.contains("HTTP 200"))
        let test = try #require(receiver.received.first)
        #expect(test.verified && test.type == "test" && test.webhookID == test.id)

        let both = try directory.writeConfig([
            "events": [
                "endpoints": [
                    ["url": receiver.url, "secret": Self.secret], ["url": failing.url, "secret": Self.secret]
                ]
            ]
        ])
        let mixed = try await ChildProcess.run("tollgate", ["events", "test", "--config", both])
        #expect(mixed.status == 1)
        #expect(mixed.stdout.contains("HTTP 500"))
        #expect(!mixed.stdout.contains("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw") && !mixed.stderr.contains("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"))
    }
}
