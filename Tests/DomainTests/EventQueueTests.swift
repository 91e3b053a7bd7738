import Domain
import Foundation
import Storage
import Testing

@Suite("Event queue and store")
struct EventQueueTests {
    static let queue = EventQueue(
        subscriptions: [
            EventSubscription(endpointID: "ep_all", types: ["*"]),
            EventSubscription(endpointID: "ep_purchases", types: ["purchase.*"])
        ],
        catalog: EntitlementCatalog(["premium": ["price_monthly"]]))

    @Test("Types filters: * and family.* select, a type selects itself, test is never selected by *")
    func filters() {
        #expect(EventType.purchaseCreated.matches("*") && EventType.purchaseCreated.matches("purchase.*"))
        #expect(!EventType.codeRedeemed.matches("purchase.*") && EventType.codeRedeemed.matches("code.redeemed"))
        #expect(!EventType.accountSwitched.matches("account.created"))
    }

    @Test("One row per event, one delivery per endpoint that wants it, sequence per account, in the caller's transaction")
    func recording() throws {
        let test = try TestDatabase()
        let applied = try test.write { try PurchaseRepository.apply(Fixtures.snapshot(), on: $0, now: Fixtures.t0) }
        let (account, created) = try test.write { connection -> (Account, String?) in
            let account = try AccountRepository.create(secrets: Fixtures.secrets, on: connection, now: Fixtures.t0)
            try Self.queue.purchaseApplied(applied, on: connection, now: Fixtures.t0)
            try PurchaseRepository.link(purchaseID: applied.purchase.id, to: account.id, on: connection, now: Fixtures.t0)
            try Self.queue.purchaseLinked(applied.purchase, to: account.id, on: connection, now: Fixtures.t0)
            try Self.queue.accountCreated(account.id, on: connection, now: Fixtures.t0)
            return (account, try connection.queryOne("SELECT id FROM events WHERE type = 'purchase.created'")?.string("id"))
        }
        #expect(created != nil)
        let rows = try test.write { connection in
            try connection.query("SELECT type, account_id, sequence, body FROM events ORDER BY sequence_scope, sequence").map {
                (try $0.string("type"), try $0.optionalString("account_id"), try $0.int("sequence"), try $0.string("body"))
            }
        }
        #expect(rows.map(\.0).sorted() == ["account.created", "entitlements.changed", "purchase.created"])
        #expect(rows.filter { $0.1 == account.id }.map(\.2) == [1, 2], "the account's events count 1, 2")
        #expect(rows.first { $0.0 == "purchase.created" }?.2 == 1, "an unlinked purchase counts its own")
        #expect(rows.allSatisfy { !$0.3.contains("Buyer@Example.com") && !$0.3.contains("buyer@example.com") })
        let deliveries = try test.write { try $0.queryOne("SELECT count(*) AS n FROM event_deliveries")?.int("n") }
        #expect(deliveries == 4, "purchase.created goes to both endpoints, the rest to ep_all only")

        // A rollback takes the event with it.
        _ = try? test.write { connection in
            try Self.queue.accountCreated(account.id, on: connection, now: Fixtures.t0)
            throw DomainError(.notFound, "rolled back")
        }
        #expect(try test.write { try $0.queryOne("SELECT count(*) AS n FROM events")?.int("n") } == 3)
        try test.write { connection in try EventQueue.disabled.accountCreated(account.id, on: connection, now: Fixtures.t0) }
        #expect(try test.write { try $0.queryOne("SELECT count(*) AS n FROM events")?.int("n") } == 3, "a disabled queue writes nothing")
    }

    @Test("Claim, outcome, recovery, orphaned endpoints and redelivery")
    func delivery() throws {
        let test = try TestDatabase()
        let t0 = Fixtures.t0
        try test.write { connection in
            for index in 0..<3 {
                try Self.queue.record(.purchaseUpdated, accountID: "acc_\(index)", scope: "x", data: [:], on: connection, now: t0)
            }
        }
        let claimed = try test.write { try EventStore.claim(endpointID: "ep_all", limit: 2, lease: 60, on: $0, now: t0) }
        #expect(claimed.count == 2 && claimed.allSatisfy { $0.attempts == 1 && $0.body.contains(#""type":"purchase.updated""#) })
        #expect(try test.write { try EventStore.claim(endpointID: "ep_all", limit: 5, lease: 60, on: $0, now: t0) }.count == 1)
        #expect(try test.write { try EventStore.claim(endpointID: "ep_all", limit: 5, lease: 60, on: $0, now: t0) }.isEmpty)
        // A dead claimer's lease runs out.
        #expect(try test.write { try EventStore.claim(endpointID: "ep_all", limit: 5, lease: 60, on: $0, now: t0.addingTimeInterval(61)) }.count == 3)

        try test.write { connection in
            try EventStore.record(
                [
                    (deliveryID: claimed[0].id, outcome: .delivered(status: 200), latencyMS: 3),
                    (deliveryID: claimed[1].id, outcome: .failed(status: 500, error: "HTTP 500", retryAt: nil), latencyMS: 4)
                ], on: connection, now: t0)
        }
        if test.database.dialect == .sqlite {
            #expect(try test.write { try EventStore.recoverAbandoned(on: $0, now: t0) } == 1, "SQLite's one process was the only sender")
        } else {
            // Another instance may be sending it right now: only its lease returns it.
            #expect(try test.write { try EventStore.recoverAbandoned(on: $0, now: t0) } == 0)
            #expect(
                try test.write { try EventStore.claim(endpointID: "ep_all", limit: 0, lease: 60, on: $0, now: t0.addingTimeInterval(59)) }.isEmpty)
            let sending = try test.write { try $0.query("SELECT id FROM event_deliveries WHERE status = 'sending'") }
            #expect(sending.count == 1, "its lease has not run out")
            #expect(
                try test.write { try EventStore.claim(endpointID: "ep_all", limit: 0, lease: 60, on: $0, now: t0.addingTimeInterval(200)) }.isEmpty)
            #expect(try test.write { try $0.query("SELECT id FROM event_deliveries WHERE status = 'sending'") }.isEmpty, "its lease ran out")
        }
        #expect(try test.write { try EventStore.counts(on: $0) } == ["pending": 4, "delivered": 1, "failed": 1])
        let failed = try test.write { try EventStore.entries(status: "failed", limit: 10, on: $0) }
        #expect(failed.map(\.eventID) == [claimed[1].eventID] && failed.first?.lastStatus == 500)

        #expect(
            try test.write { try EventStore.redeliver(eventID: claimed[1].eventID, retryWindow: 3600, on: $0, now: t0) } == 2,
            "both endpoints' deliveries of the event")
        #expect(try test.write { try EventStore.redeliver(eventID: "evt_none", retryWindow: 3600, on: $0, now: t0) } == nil)
        #expect(try test.write { try EventStore.failOrphans(keeping: ["ep_all"], on: $0, now: t0) } == 3, "ep_purchases was removed")
        #expect(try test.write { try EventStore.counts(on: $0) } == ["pending": 2, "delivered": 1, "failed": 3])
    }
}
