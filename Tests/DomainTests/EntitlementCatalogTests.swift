@testable import Domain
import Foundation
import Storage
import Testing

/// Which purchase gives an entitlement its state, expiry and source when several map to it, and
/// how an operator's grant combines with them.
@Suite("Entitlements: the purchase that grants one, and grants beside purchases")
struct EntitlementCatalogTests {
    let catalog = EntitlementCatalog(["premium": ["price_monthly", "price_yearly"], "extra": ["price_extra"]])
    let now = Fixtures.t0.addingTimeInterval(1000)

    /// Purchases made from one stored row, each with its own product, status, expiry and store.
    func purchases(_ shapes: [(product: String, status: PurchaseStatus, expires: TimeInterval?, platform: Platform)]) throws -> [Purchase] {
        let db = try TestDatabase()
        let stored = try db.write { try PurchaseRepository.apply(Fixtures.snapshot(), on: $0, now: Fixtures.t0) }.purchase
        return shapes.enumerated().map { index, shape in
            var purchase = stored
            purchase.productID = shape.product
            purchase.status = shape.status
            purchase.expiresAt = shape.expires.map { Fixtures.t0.addingTimeInterval($0) }
            purchase.platform = shape.platform
            purchase.willRenew = index % 2 == 0
            purchase.renewsToProductID = "next_\(index)"
            return purchase
        }
    }

    func grant(_ entitlement: String, until seconds: TimeInterval, ended: Bool = false) -> ManualEntitlement {
        ManualEntitlement(
            id: "men_\(entitlement)_\(Int(seconds))", accountID: "acc_1", entitlement: entitlement, endsAt: Fixtures.t0.addingTimeInterval(seconds),
            grantedBy: "support@example.com", reason: "test", createdAt: Fixtures.t0, endedAt: ended ? Fixtures.t0 : nil,
            endedBy: ended ? "support@example.com" : nil)
    }

    @Test("The entitled purchase ending last gives the state and the source; an earlier one and a lapsed later one do not")
    func latestEntitledGrants() throws {
        let list = try purchases([
            ("price_monthly", .active, 5000, .stripe),
            ("price_yearly", .active, 9000, .appStore),
            ("price_yearly", .expired, 20000, .playStore)
        ])
        let premium = try #require(catalog.entitlements(for: list, at: now).first { $0.id == "premium" })
        #expect(
            premium
                == Entitlement(
                    id: "premium", active: true, expiresAt: Fixtures.t0.addingTimeInterval(9000), source: .appStore,
                    willRenew: false, renewsToProductID: "next_1"))
        #expect(catalog.entitlements(for: list, at: now).map(\.id) == ["premium"])
    }

    @Test("A purchase that never ends grants without end, whatever ends later; the first such one is the source")
    func neverEndingWins() throws {
        let list = try purchases([
            ("price_monthly", .active, 9000, .stripe),
            ("price_yearly", .active, nil, .playStore),
            ("price_monthly", .active, nil, .appStore)
        ])
        let premium = try #require(catalog.entitlements(for: list, at: now).first)
        #expect(
            premium
                == Entitlement(
                    id: "premium", active: true, expiresAt: nil, source: .playStore, willRenew: false,
                    renewsToProductID: "next_1"))
        #expect(try #require(catalog.entitlements(for: list, manual: [grant("premium", until: 50000)], at: now).first).expiresAt == nil)
    }

    @Test("With none entitled, the one that ended last is shown inactive; of equals the first; one that never ended counts as oldest")
    func lapsedShowsTheLastOne() throws {
        let list = try purchases([
            ("price_monthly", .refunded, nil, .stripe),
            ("price_monthly", .expired, 500, .appStore),
            ("price_yearly", .expired, 500, .playStore)
        ])
        let premium = try #require(catalog.entitlements(for: list, at: now).first)
        #expect(
            premium
                == Entitlement(
                    id: "premium", active: false, expiresAt: Fixtures.t0.addingTimeInterval(500), source: .appStore,
                    willRenew: false, renewsToProductID: "next_1"))
        let onlyNeverEnded = try purchases([("price_monthly", .refunded, nil, .stripe)])
        #expect(
            catalog.entitlements(for: onlyNeverEnded, at: now).first
                == Entitlement(
                    id: "premium", active: false, expiresAt: nil,
                    source: .stripe, willRenew: true, renewsToProductID: "next_0"))
    }

    @Test("A live grant keeps an entitlement active past its purchases, and lengthens an entitled one; an ended grant does nothing")
    func grantsBesidePurchases() throws {
        let lapsed = try purchases([("price_monthly", .expired, 500, .stripe)])
        #expect(
            catalog.entitlements(for: lapsed, manual: [grant("premium", until: 4000)], at: now).first
                == Entitlement(id: "premium", active: true, expiresAt: Fixtures.t0.addingTimeInterval(4000), source: nil))
        let entitled = try purchases([("price_monthly", .active, 3000, .stripe)])
        let longer = [grant("premium", until: 8000), grant("premium", until: 6000)]
        #expect(catalog.entitlements(for: entitled, manual: longer, at: now).first?.expiresAt == Fixtures.t0.addingTimeInterval(8000))
        #expect(
            catalog.entitlements(for: entitled, manual: [grant("premium", until: 2000)], at: now).first?.expiresAt
                == Fixtures.t0.addingTimeInterval(3000))
        #expect(
            catalog.entitlements(for: entitled, manual: [grant("premium", until: 8000, ended: true)], at: now).first?.expiresAt
                == Fixtures.t0.addingTimeInterval(3000))
        #expect(catalog.entitlements(for: [], manual: [grant("extra", until: 4000)], at: now).map(\.id) == ["extra"])
        #expect(catalog.entitlements(for: [], manual: [grant("extra", until: 4000, ended: true)], at: now).isEmpty)
    }
}
