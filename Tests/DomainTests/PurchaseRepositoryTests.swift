import Domain
import Foundation
import Storage
import Testing

@Suite("Purchases: idempotent, ordered by event time")
struct PurchaseRepositoryTests {
    @Test("Applying the same snapshot twice keeps one row")
    func idempotent() throws {
        let db = try TestDatabase()
        let first = try db.write { try PurchaseRepository.apply(Fixtures.snapshot(), on: $0, now: Fixtures.t0) }
        let second = try db.write { try PurchaseRepository.apply(Fixtures.snapshot(), on: $0, now: Fixtures.t0) }
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
