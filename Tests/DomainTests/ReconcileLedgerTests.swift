import Domain
import Foundation
import Storage
import Testing

@Suite("Reconciler's ledger: one run per provider at a time, cursors kept, lapsed subscriptions asked once per period end")
struct ReconcileLedgerTests {
    @Test("A provider's run is held by one instance until it finishes or its lease expires")
    func claims() throws {
        let db = try TestDatabase()
        let t0 = Fixtures.t0
        let lease = t0.addingTimeInterval(900)
        #expect(try db.write { try ReconcileLedger.claim(provider: "stripe", instance: "a", until: lease, now: t0, on: $0) })
        // Another instance finds it taken; the same provider elsewhere is free.
        #expect(try !db.write { try ReconcileLedger.claim(provider: "stripe", instance: "b", until: lease, now: t0.addingTimeInterval(1), on: $0) })
        #expect(try db.write { try ReconcileLedger.claim(provider: "app_store", instance: "b", until: lease, now: t0, on: $0) })
        // B cannot record a run it does not hold.
        try db.write {
            try ReconcileLedger.finish(
                provider: "stripe", instance: "b", .init(outcome: "ok", checked: 5, changes: 5, cursorAt: t0), now: t0, on: $0)
        }
        #expect(try db.write { try ReconcileLedger.entry("stripe", on: $0) }?.runs == 0)
        // A finishes: the cursor and figures are kept, the lease is free again.
        try db.write {
            try ReconcileLedger.finish(
                provider: "stripe", instance: "a", .init(outcome: "ok", checked: 7, changes: 2, cursorAt: t0.addingTimeInterval(-300)),
                now: t0.addingTimeInterval(2), on: $0)
        }
        let entry = try #require(try db.write { try ReconcileLedger.entry("stripe", on: $0) })
        #expect(entry.cursorAt == t0.addingTimeInterval(-300))
        #expect(entry.claimedBy == nil && entry.runs == 1 && entry.lastChecked == 7 && entry.lastChanges == 2 && entry.changesTotal == 2)
        #expect(try db.write { try ReconcileLedger.claim(provider: "stripe", instance: "b", until: lease, now: t0.addingTimeInterval(3), on: $0) })
        // A lease left by an instance that died expires by itself.
        #expect(
            try !db.write { try ReconcileLedger.claim(provider: "app_store", instance: "c", until: lease, now: t0.addingTimeInterval(899), on: $0) })
        #expect(
            try db.write { try ReconcileLedger.claim(provider: "app_store", instance: "c", until: lease, now: t0.addingTimeInterval(900), on: $0) })
        // An unavailable run with no cursor keeps the one it had.
        try db.write {
            try ReconcileLedger.finish(
                provider: "stripe", instance: "b", .init(outcome: "unavailable", error: "down", checked: 0, changes: 0, cursorAt: nil),
                now: t0.addingTimeInterval(4), on: $0)
        }
        let after = try #require(try db.write { try ReconcileLedger.entry("stripe", on: $0) })
        #expect(after.cursorAt == t0.addingTimeInterval(-300) && after.lastOutcome == "unavailable" && after.lastError == "down" && after.runs == 2)
    }

    @Test("Subscriptions whose period ended without news are due once per period end; ended, refunded and one-time ones never")
    func lapsed() throws {
        let db = try TestDatabase()
        let t0 = Fixtures.t0
        func store(_ id: String, _ platform: Platform, _ status: PurchaseStatus, expires: TimeInterval?) throws {
            let snapshot = PurchaseSnapshot(
                platform: platform, externalID: id, productID: "monthly", status: status, expiresAt: expires.map { t0.addingTimeInterval($0) },
                observedAt: t0)
            _ = try db.write { try PurchaseRepository.apply(snapshot, on: $0, now: t0) }
        }
        try store("renewed-missed", .appStore, .active, expires: -3600)
        try store("canceled-missed", .appStore, .canceled, expires: -60)
        try store("retrying", .appStore, .billingRetry, expires: -7200)
        try store("running", .appStore, .active, expires: 3600)
        try store("expired", .appStore, .expired, expires: -3600)
        try store("refunded", .appStore, .refunded, expires: -3600)
        try store("lifetime", .appStore, .active, expires: nil)
        try store("too-old", .appStore, .active, expires: -40 * 86_400)
        try store("play", .playStore, .active, expires: -3600)
        let now = t0
        let oldest = now.addingTimeInterval(-30 * 86_400)
        let due = try db.write { try LapsedPurchases.due(platform: .appStore, now: now, oldest: oldest, limit: 10, on: $0) }
        #expect(due.map(\.externalID) == ["retrying", "renewed-missed", "canceled-missed"])
        #expect(try db.write { try LapsedPurchases.due(platform: .appStore, now: now, oldest: oldest, limit: 1, on: $0) }.count == 1)
        // Asked about its period end: not due again until a new period ends.
        let first = due[0]
        try db.write { try LapsedPurchases.markAsked(purchaseID: first.id, expiry: try #require(first.expiresAt), on: $0) }
        #expect(
            try db.write { try LapsedPurchases.due(platform: .appStore, now: now, oldest: oldest, limit: 10, on: $0) }.map(\.externalID)
                == ["renewed-missed", "canceled-missed"])
        // The store said it renewed: the new period, once over, is due again.
        try store("retrying", .appStore, .active, expires: 3600)
        let later = now.addingTimeInterval(7200)
        #expect(
            try db.write { try LapsedPurchases.due(platform: .appStore, now: later, oldest: oldest, limit: 10, on: $0) }.map(\.externalID)
                .contains("retrying"))
        #expect(
            try db.write { try LapsedPurchases.due(platform: .playStore, now: now, oldest: oldest, limit: 10, on: $0) }.map(\.externalID) == ["play"])
    }
}
