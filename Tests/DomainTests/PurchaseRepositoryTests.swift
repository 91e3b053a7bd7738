import Domain
import Foundation
import Storage
import Testing

@Suite("Purchases: idempotent, ordered by event time")
struct PurchaseRepositoryTests {
    // One database for both rules: on PostgreSQL every suite's fresh schema waits its turn to
    // migrate, blocking a thread of the shared pool meanwhile, so a test adds no database it
    // does not need (a live-socket test beside them timed out when this one had its own).
    @Test("Applying the same snapshot twice keeps one row; apply asks whether the purchase is stored before it writes, and a refusal leaves nothing")
    func idempotent() throws {
        let db = try TestDatabase()
        struct Refused: Error {}
        var asked: [Bool] = []
        #expect(throws: Refused.self) {
            try db.write {
                try PurchaseRepository.apply(Fixtures.snapshot(), on: $0, now: Fixtures.t0) {
                    asked.append($0); throw Refused()
                }
            }
        }
        #expect(try db.write { try $0.queryOne("SELECT count(*) AS n FROM purchases")?.int("n") } == 0)
        #expect(try db.write { try $0.queryOne("SELECT count(*) AS n FROM purchase_history")?.int("n") } == 0)
        let first = try db.write { try PurchaseRepository.apply(Fixtures.snapshot(), on: $0, now: Fixtures.t0) { asked.append($0) } }
        let second = try db.write { try PurchaseRepository.apply(Fixtures.snapshot(), on: $0, now: Fixtures.t0) }
        #expect(throws: Refused.self) {
            try db.write {
                try PurchaseRepository.apply(Fixtures.snapshot(status: .expired, observed: 500), on: $0, now: Fixtures.t0) {
                    asked.append($0)
                    throw Refused()
                }
            }
        }
        #expect(asked == [false, false, true])
        #expect(try db.write { try PurchaseRepository.find(id: first.purchase.id, on: $0)?.status } == .active)
        #expect(first.created && !second.created)
        #expect(first.purchase.id == second.purchase.id)
        #expect(!second.stateChanged)
        let count = try db.write { try $0.queryOne("SELECT count(*) AS n FROM purchases")?.int("n") }
        #expect(count == 1)
        #expect(first.purchase.purchaserEmail == "buyer@example.com")
    }

    @Test("An older snapshot never moves a purchase back, but fills missing facts")
    func outOfOrder() throws {
        let db = try TestDatabase()
        _ = try db.write {
            try PurchaseRepository.apply(Fixtures.snapshot(status: .expired, expires: -10, observed: 100, email: nil), on: $0, now: Fixtures.t0)
        }
        let late = try db.write {
            try PurchaseRepository.apply(
                Fixtures.snapshot(status: .active, expires: 86400, observed: 50, email: "late@example.com"), on: $0, now: Fixtures.t0)
        }
        #expect(late.purchase.status == .expired)
        #expect(!late.stateChanged)
        #expect(late.purchase.purchaserEmail == "late@example.com")
        let newer = try db.write { try PurchaseRepository.apply(Fixtures.snapshot(status: .active, observed: 200), on: $0, now: Fixtures.t0) }
        #expect(newer.purchase.status == .active && newer.stateChanged)
    }

    @Test("A snapshot that changes nothing and fills no gap leaves the row untouched; a change is one UPDATE; history rows are keyed in time order")
    func noRewriteAndTimeOrderedHistory() throws {
        let db = try TestDatabase()
        let first = try db.write { try PurchaseRepository.apply(Fixtures.snapshot(observed: 0), on: $0, now: Fixtures.t0) }
        // What says the row was written: SQLite's count of rows changed on the connection, or the
        // PostgreSQL row version's transaction (an UPDATE makes a new version even with equal values).
        let written = { (connection: Connection) throws -> String in
            connection.dialect == .sqlite
                ? String(try connection.queryOne("SELECT total_changes() AS n")?.int64("n") ?? -1)
                : try connection.queryOne("SELECT xmin::text AS n FROM purchases WHERE id = ?", [first.purchase.id])?.string("n") ?? ""
        }
        // Older snapshots (a newer one writes its state): the same facts, or fewer.
        for snapshot in [Fixtures.snapshot(observed: -50), Fixtures.snapshot(observed: -40, email: nil)] {
            let (before, after) = try db.write { connection in
                let before = try written(connection)
                _ = try PurchaseRepository.apply(snapshot, on: connection, now: Fixtures.t0.addingTimeInterval(1))
                return (before, try written(connection))
            }
            #expect(before == after, "observed \(snapshot.observedAt), email \(snapshot.purchaserEmail ?? "none")")
        }
        // A newer snapshot with a renewal plan and an offer: the row is written once, with all of it
        // (SQLite counts each row an UPDATE or INSERT statement writes), and its history row.
        var newer = Fixtures.snapshot(observed: 1)
        newer.willRenew = false
        newer.renewsToProductID = "price_yearly"
        newer.offerType = "introductory"
        let (changes, applied) = try db.write { connection in
            let before = try written(connection)
            let applied = try PurchaseRepository.apply(newer, on: connection, now: Fixtures.t0.addingTimeInterval(1))
            return ((Int(try written(connection)) ?? 0) - (Int(before) ?? 0), applied.purchase)
        }
        if db.database.dialect == .sqlite { #expect(changes == 2, "rows written: the purchase and its history") }
        #expect(applied.willRenew == false && applied.renewsToProductID == "price_yearly" && applied.offerType == "introductory")
        #expect(try db.write { try PurchaseRepository.find(id: first.purchase.id, on: $0) } == applied)
        // Each change writes a history row whose id sorts after the one before.
        for step in 1...12 {
            _ = try db.write {
                try PurchaseRepository.apply(
                    Fixtures.snapshot(expires: Double(30 + step) * 86400, observed: Double(1 + step)), on: $0,
                    now: Fixtures.t0.addingTimeInterval(Double(1 + step)))
            }
        }
        let ids = try db.write {
            try $0.query("SELECT id FROM purchase_history WHERE purchase_id = ? ORDER BY created_at", [first.purchase.id]).map { try $0.string("id") }
        }
        #expect(ids.count == 14)
        #expect(ids == ids.sorted(), "\(ids)")
    }

    @Test("The purchase apply returns is what the database holds after it, whatever the snapshot changed")
    func returnedPurchaseIsStored() throws {
        let db = try TestDatabase()
        let stored = { (id: String) in try db.write { try PurchaseRepository.find(id: id, on: $0) } }
        // Created with gaps: no email, no environment, no renewal plan.
        var first = Fixtures.snapshot(expires: 1000.4, observed: 0.0006, email: nil)
        first.customerID = nil
        let created = try db.write { try PurchaseRepository.apply(first, on: $0, now: Fixtures.t0) }
        #expect(try stored(created.purchase.id) == created.purchase)
        // Newer: every state column moves, the renewal plan and offer come, the gaps fill in.
        var newer = Fixtures.snapshot(status: .billingRetry, expires: 5000.2, observed: 10.0004, email: "Late@Example.COM", product: "price_yearly")
        newer.environment = "production"
        newer.willRenew = false
        newer.renewsToProductID = "price_monthly"
        newer.offerType = "introductory"
        newer.ownerHint = "owner-1"
        let later = Fixtures.t0.addingTimeInterval(60.0007)
        let changed = try db.write { try PurchaseRepository.apply(newer, on: $0, now: later) }
        #expect(changed.stateChanged)
        #expect(changed.purchase.purchaserEmail == "late@example.com" && changed.purchase.willRenew == false)
        #expect(try stored(changed.purchase.id) == changed.purchase)
        // Older: the state stays; the environment is kept when a snapshot names none; filled gaps stay.
        var older = Fixtures.snapshot(status: .expired, expires: -10, observed: 5, email: "other@example.com")
        older.ownerHint = "owner-2"
        let kept = try db.write { try PurchaseRepository.apply(older, on: $0, now: later.addingTimeInterval(1)) }
        #expect(!kept.stateChanged && kept.purchase.status == .billingRetry && kept.purchase.ownerHint == "owner-1")
        #expect(try stored(kept.purchase.id) == kept.purchase)
        // Newer without an environment or a renewal plan: those stay as they were.
        let renewed = try db.write {
            try PurchaseRepository.apply(Fixtures.snapshot(status: .active, expires: 9000, observed: 20), on: $0, now: later.addingTimeInterval(2))
        }
        #expect(renewed.purchase.environment == "production" && renewed.purchase.willRenew == false)
        #expect(try stored(renewed.purchase.id) == renewed.purchase)
        // A purchase whose account's data was erased takes back no email and no owner.
        let purchaseID = renewed.purchase.id
        try db.write {
            try $0.execute(
                "UPDATE purchases SET purchaser_email = NULL, owner_hint = NULL, erased_at = ? WHERE id = ?",
                [Timestamp.milliseconds(Fixtures.t0), purchaseID])
        }
        var again = Fixtures.snapshot(status: .active, expires: 9500, observed: 30, email: "back@example.com")
        again.ownerHint = "owner-3"
        let erased = try db.write { try PurchaseRepository.apply(again, on: $0, now: later.addingTimeInterval(3)) }
        #expect(erased.purchase.purchaserEmail == nil && erased.purchase.ownerHint == nil)
        #expect(try stored(erased.purchase.id) == erased.purchase)
    }

    @Test("A superseding token re-keys the same purchase; the old token still finds it")
    func supersede() throws {
        let db = try TestDatabase()
        let old = PurchaseSnapshot(
            platform: .playStore, externalID: "token-old", productID: "monthly", status: .expired, expiresAt: Fixtures.t0, observedAt: Fixtures.t0)
        var new = PurchaseSnapshot(
            platform: .playStore, externalID: "token-new", productID: "monthly", status: .active,
            expiresAt: Fixtures.t0.addingTimeInterval(86400), observedAt: Fixtures.t0.addingTimeInterval(10))
        new.supersedesExternalID = "token-old"
        let first = try db.write { try PurchaseRepository.apply(old, on: $0, now: Fixtures.t0) }
        let second = try db.write { try PurchaseRepository.apply(new, on: $0, now: Fixtures.t0) }
        #expect(first.purchase.id == second.purchase.id)
        #expect(second.purchase.externalID == "token-new" && second.purchase.status == .active)
        let byOld = try db.write { try PurchaseRepository.find(platform: .playStore, reference: "token-old", on: $0) }
        #expect(byOld?.id == first.purchase.id)
        let rows = try db.write { try $0.queryOne("SELECT count(*) AS n FROM purchases")?.int("n") }
        #expect(rows == 1)

        // A later reading of the replaced token (Google expires it) is about the old order only.
        let replaced = PurchaseSnapshot(
            platform: .playStore, externalID: "token-old", productID: "monthly", status: .expired,
            expiresAt: Fixtures.t0.addingTimeInterval(20), observedAt: Fixtures.t0.addingTimeInterval(20), purchaserEmail: "late@example.com")
        let third = try db.write { try PurchaseRepository.apply(replaced, on: $0, now: Fixtures.t0) }
        #expect(third.purchase.id == first.purchase.id && !third.stateChanged)
        #expect(third.purchase.externalID == "token-new" && third.purchase.status == .active)
        #expect(third.purchase.expiresAt == Fixtures.t0.addingTimeInterval(86400))
        #expect(third.purchase.purchaserEmail == "late@example.com", "facts that do not go stale still fill gaps")
    }

    @Test("Entitlements follow the configured mapping, status and expiry")
    func entitlements() throws {
        let db = try TestDatabase()
        let catalog = EntitlementCatalog(["premium": ["price_monthly", "com.example.monthly"], "extra": ["price_other"]])
        let active = try db.write { try PurchaseRepository.apply(Fixtures.snapshot("sub_a", expires: 3600), on: $0, now: Fixtures.t0) }.purchase
        let refunded = try db.write {
            try PurchaseRepository.apply(
                Fixtures.snapshot("sub_b", status: .refunded, expires: 7200, product: "price_other"), on: $0, now: Fixtures.t0)
        }.purchase
        let result = catalog.entitlements(for: [active, refunded], at: Fixtures.t0)
        #expect(result.map(\.id) == ["extra", "premium"])
        #expect(result.first { $0.id == "premium" }?.active == true)
        #expect(result.first { $0.id == "premium" }?.expiresAt == Fixtures.t0.addingTimeInterval(3600))
        #expect(result.first { $0.id == "extra" }?.active == false)
        #expect(catalog.entitlements(for: [active], at: Fixtures.t0.addingTimeInterval(3601)).first?.active == false)
    }
}
