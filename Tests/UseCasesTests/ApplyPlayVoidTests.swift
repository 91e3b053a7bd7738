import Domain
import Foundation
import Storage
import Testing
import TestSupport
import UseCases

@Suite("Google Play voids (ApplyPlayVoid)")
struct ApplyPlayVoidTests {
    func void(
        _ play: PlayBench, _ token: String, at voidedAt: Date, refundType: Int? = nil, orderID: String? = "GPA.1"
    ) throws -> PurchaseRepository.Applied? {
        let now = play.bench.now
        let apply = ApplyPlayVoid(events: play.events)
        return try play.bench.database.writeSync {
            try apply.apply(purchaseToken: token, orderID: orderID, voidedAt: voidedAt, refundType: refundType, now: now, on: $0)
        }
    }

    @Test("A full void ends access: refunded, stamped at the void's time, one purchase.updated event")
    func fullVoid() async throws {
        let play = try PlayBench()
        defer { Task { await play.stop() } }
        let bought = play.bench.now.addingTimeInterval(-10 * 86_400)
        let stored = try play.store(play.activeSubscription("tok-1", observedAt: bought))
        let voidedAt = play.bench.now.addingTimeInterval(-3600)
        let applied = try #require(try void(play, "tok-1", at: voidedAt))
        #expect(applied.stateChanged)
        #expect(applied.purchase.status == .refunded)
        #expect(applied.purchase.observedAt == voidedAt, "the change time is the void's, not the purchase's")
        #expect(applied.purchase.expiresAt == stored.expiresAt)
        #expect(applied.purchase.isEntitled(at: play.bench.now) == false)
        let updates = try play.purchaseUpdates()
        #expect(updates.count == 1)
        #expect(updates.first?.contains(#""status":"refunded""#) == true, "\(updates)")

        // The same void again (RTDN and the list both report it): nothing changes, no second event.
        #expect(try void(play, "tok-1", at: voidedAt) == nil)
        #expect(try play.purchaseUpdates().count == 1)
    }

    @Test("A quantity-based partial refund (refundType 2) changes nothing")
    func partialRefund() async throws {
        let play = try PlayBench()
        defer { Task { await play.stop() } }
        try play.store(play.activeSubscription("tok-p", observedAt: play.bench.now.addingTimeInterval(-60)))
        #expect(try void(play, "tok-p", at: play.bench.now, refundType: 2) == nil)
        #expect(try play.purchase("tok-p")?.status == .active)
        #expect(try play.purchaseUpdates().isEmpty)
        // refundType 1 (full) does end it.
        #expect(try void(play, "tok-p", at: play.bench.now, refundType: 1)?.purchase.status == .refunded)
    }

    @Test("A void older than the stored state still wins, stamped no earlier than that state")
    func olderVoidWins() async throws {
        let play = try PlayBench()
        defer { Task { await play.stop() } }
        let observed = play.bench.now.addingTimeInterval(-60)
        try play.store(play.activeSubscription("tok-o", observedAt: observed))
        let applied = try #require(try void(play, "tok-o", at: play.bench.now.addingTimeInterval(-86_400)))
        #expect(applied.purchase.status == .refunded)
        #expect(applied.purchase.observedAt == observed)
    }

    @Test("No such purchase, or a token another has replaced: nothing changes")
    func unknownOrReplaced() async throws {
        let play = try PlayBench()
        defer { Task { await play.stop() } }
        #expect(try void(play, "tok-none", at: play.bench.now) == nil)
        #expect(try play.count("purchases") == 0)

        try play.store(play.activeSubscription("tok-old", observedAt: play.bench.now.addingTimeInterval(-120)))
        var renewed = play.activeSubscription("tok-new", observedAt: play.bench.now.addingTimeInterval(-60), days: 50)
        renewed.supersedesExternalID = "tok-old"
        try play.store(renewed)
        #expect(try void(play, "tok-old", at: play.bench.now) == nil, "the old order is refunded, the new subscription paid on its own")
        #expect(try play.purchase("tok-new")?.status == .active)
    }

    @Test("A void is final: a later reading of the same token stays refunded; only a period paid after it grants again")
    func voidIsFinal() async throws {
        let play = try PlayBench()
        defer { Task { await play.stop() } }
        let now = play.bench.now
        try play.store(play.activeSubscription("tok-f", observedAt: now.addingTimeInterval(-600), days: 20))
        _ = try void(play, "tok-f", at: now.addingTimeInterval(-300))

        func kept(_ snapshot: PurchaseSnapshot) throws -> PurchaseSnapshot {
            try play.bench.database.readSync { try ApplyPlayVoid.keepingVoid(snapshot, on: $0) }
        }
        // Google still says ACTIVE for the refunded period (a refund without revocation), read after the void.
        let sameperiod = play.activeSubscription("tok-f", observedAt: now, days: 20)
        #expect(try kept(sameperiod).status == .refunded)
        var revoked = sameperiod
        revoked.status = .expired
        #expect(try kept(revoked).status == .refunded)
        // A renewal paid after the void: a later expiry.
        let renewal = play.activeSubscription("tok-f", observedAt: now, days: 50)
        #expect(try kept(renewal) == renewal)
        // Other tokens and platforms pass unchanged.
        let other = play.activeSubscription("tok-other", observedAt: now)
        #expect(try kept(other) == other)
    }
}
