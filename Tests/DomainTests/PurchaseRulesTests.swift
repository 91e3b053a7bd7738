import Domain
import Foundation
import Storage
import Testing

/// The purchase rules that need no HTTP: which Stripe objects become purchases, how long a
/// non-renewing subscription lasts, and how a renewal plan is kept.
@Suite("Purchase rules")
struct PurchaseRulesTests {
    @Test("Stripe: started here, already known, or a configured price; nothing else")
    func vouching() {
        let vouching = StripeVouching(prices: ["price_monthly"])
        #expect(vouching.vouches(priceID: "price_monthly"))
        #expect(vouching.vouches(priceID: "price_other", startedHere: true))
        #expect(vouching.vouches(priceID: "price_other", known: true))
        #expect(!vouching.vouches(priceID: "price_other"))
        #expect(throws: DomainError(.notVouched(objectID: "sub_1", priceID: "price_other"))) {
            try vouching.require(objectID: "sub_1", priceID: "price_other")
        }
    }

    @Test("A non-renewing purchase lasts its configured days from the purchase; other purchases are untouched")
    func durations() throws {
        let durations = ProductDurations(days: ["season": 90])
        let bought = Fixtures.t0.addingTimeInterval(-10 * 86400)
        var snapshot = PurchaseSnapshot(
            platform: .appStore, externalID: "1", productID: "season", status: .active, expiresAt: nil, observedAt: Fixtures.t0)
        snapshot.nonRenewingPurchasedAt = bought
        let applied = try durations.applied(to: snapshot, now: Fixtures.t0)
        #expect(applied.expiresAt == bought.addingTimeInterval(90 * 86400))
        #expect(applied.status == .active)
        #expect(try durations.applied(to: snapshot, now: Fixtures.t0.addingTimeInterval(81 * 86400)).status == .expired)
        var other = snapshot
        other.productID = "pass"
        #expect(throws: DomainError(.durationMissing(productID: other.productID))) { try durations.applied(to: other, now: Fixtures.t0) }
        let lifetime = PurchaseSnapshot(
            platform: .appStore, externalID: "2", productID: "pass", status: .active, expiresAt: nil, observedAt: Fixtures.t0)
        #expect(try durations.applied(to: lifetime, now: Fixtures.t0) == lifetime)
    }

    @Test("A renewal plan is kept until the store says another; an unsaid one never erases it")
    func renewalPlan() throws {
        let db = try TestDatabase()
        var downgrade = Fixtures.snapshot(observed: 10)
        downgrade.willRenew = true
        downgrade.renewsToProductID = "basic"
        downgrade.offerType = "introductory"
        let first = try db.write { try PurchaseRepository.apply(downgrade, on: $0, now: Fixtures.t0) }
        #expect(first.purchase.willRenew == true && first.purchase.renewsToProductID == "basic" && first.purchase.offerType == "introductory")
        let silent = try db.write { try PurchaseRepository.apply(Fixtures.snapshot(observed: 20), on: $0, now: Fixtures.t0) }
        #expect(silent.purchase.renewsToProductID == "basic", "a snapshot that says nothing of renewal keeps the plan")
        #expect(silent.purchase.offerType == "introductory")
        var off = Fixtures.snapshot(observed: 30)
        off.willRenew = false
        let turnedOff = try db.write { try PurchaseRepository.apply(off, on: $0, now: Fixtures.t0) }
        #expect(turnedOff.purchase.willRenew == false)
        #expect(turnedOff.purchase.renewsToProductID == nil)
        #expect(turnedOff.stateChanged, "a renewal turned off is a change the app's backend hears about")
        var stale = Fixtures.snapshot(observed: 5)
        stale.willRenew = true
        let late = try db.write { try PurchaseRepository.apply(stale, on: $0, now: Fixtures.t0) }
        #expect(late.purchase.willRenew == false, "older news does not turn renewal back on")
    }
}
