import Domain
import Foundation
import Storage
import Testing
import TestSupport

@testable import App
@testable import UseCases

/// The reconciler at 10,000 purchases of which 100 missed a change: one run finds exactly those,
/// with bounded store calls. Prints its figures (docs/BENCHMARKS.md quotes them); asserts no time.
@Suite("Reconciler at scale: 100 missed changes among 10,000 purchases, corrected in one run")
struct ReconcileScaleTests {
    static let purchases = 10_000
    static let missed = 100

    @Test("Stripe: 20,100 events in the window, 20,000 already received, 100 missed cancellations applied")
    func stripe() async throws {
        let harness = try CheckoutHarness()
        let now = harness.clock.now
        let ids = (0..<Self.purchases).map { String(format: "sub_scale%06d", $0) }
        for id in ids {
            harness.stripe.putSubscription(
                .init(
                    id: id, customerID: "cus_\(id.dropFirst(4))", priceID: "price_monthly", created: now.addingTimeInterval(-20 * 86_400),
                    currentPeriodEnd: now.addingTimeInterval(86_400)))
        }
        harness.clock.advance(60)
        for id in ids { _ = try harness.stripe.renewSubscription(id: id) }
        // What the webhooks delivered is stored: each renewed purchase, and the ids of its events.
        let delivered = harness.stripe.events.map(\.id)
        let seedAt = harness.clock.now
        let seedClock = ContinuousClock()
        let seeding = try await seedClock.measure {
            try await harness.app.app.database.write { connection in
                for id in ids {
                    let snapshot = PurchaseSnapshot(
                        platform: .stripe, externalID: id, productID: "price_monthly", status: .active,
                        expiresAt: now.addingTimeInterval(31 * 86_400), observedAt: seedAt)
                    _ = try PurchaseRepository.apply(snapshot, on: connection, now: seedAt)
                }
                for event in delivered {
                    _ = try WebhookEventLog.record(source: "stripe", eventID: event, type: "seed", on: connection, now: seedAt)
                }
            }
        }
        // 100 cancellations whose webhooks never arrived.
        harness.clock.advance(3_600)
        for id in ids.prefix(Self.missed) { _ = try harness.stripe.updateSubscription(id: id, status: "canceled") }
        harness.clock.advance(60)

        let requestsBefore = harness.stripe.receivedRequests.count
        let clock = ContinuousClock()
        var reports: [ReconcilePurchases.ProviderReport] = []
        let elapsed = await clock.measure { reports = await harness.app.app.reconcile.run() }
        let stripe = try #require(reports.first { $0.provider == "stripe" })
        let calls = harness.stripe.receivedRequests.count - requestsBefore
        #expect(stripe.outcome == "ok")
        #expect(stripe.changes == Self.missed)
        #expect(stripe.checked == delivered.count + Self.missed)
        #expect(calls == (delivered.count + Self.missed + 99) / 100, "one list call per 100 events, nothing else")
        #expect(try await harness.count("SELECT count(*) FROM purchases WHERE status = 'expired'") == Self.missed)
        #expect(try await harness.count("SELECT count(*) FROM purchases WHERE status = 'active'") == Self.purchases - Self.missed)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print(
            "ReconcileScale stripe: \(delivered.count + Self.missed) events, \(calls) API calls, \(stripe.changes) changes in \(String(format: "%.2f", seconds)) s "
                + "(\(Int(Double(delivered.count + Self.missed) / seconds)) events/s); seeding took \(seeding)")
        let again = await harness.app.app.reconcile.run()
        #expect(again.first { $0.provider == "stripe" }?.changes == 0)
    }

    @Test("App Store: 10,000 subscriptions, 100 whose period ended without news: 100 asked, 100 corrected, the rest untouched")
    func appStore() async throws {
        let harness = try await StoresHarness(appleEnvironment: "Production")
        defer { Task { await harness.stop() } }
        let now = harness.clock.now
        let signer = harness.pki.signer()
        let originals = (0..<Self.purchases).map { String(2_100_000_000_000_000 + $0 * 10) }
        try await harness.app.app.database.write { connection in
            for (index, original) in originals.enumerated() {
                let lapsed = index < Self.missed
                let snapshot = PurchaseSnapshot(
                    platform: .appStore, externalID: original, productID: "com.example.monthly", status: .active,
                    expiresAt: now.addingTimeInterval(lapsed ? 3_600 : 10 * 86_400), environment: "Production", observedAt: now)
                _ = try PurchaseRepository.apply(snapshot, on: connection, now: now)
            }
        }
        // At Apple, the 100 renewed (their renewals' notifications never came, nor are in the history).
        for original in originals.prefix(Self.missed) {
            try harness.apple.addSubscription(
                originalTransactionID: original, bundleID: StoresHarness.bundleID, start: now.addingTimeInterval(-29 * 86_400 + 3_600),
                periods: 2, environment: .production, signer: signer, customer: "c\(original)")
        }
        harness.clock.advance(7_200)
        let statusCalls = { harness.apple.requests.filter { $0.path.contains("/inApps/v1/subscriptions/") }.count }
        let clock = ContinuousClock()
        var reports: [ReconcilePurchases.ProviderReport] = []
        let elapsed = await clock.measure { reports = await harness.app.app.reconcile.run() }
        let apple = try #require(reports.first { $0.provider == "app_store" })
        #expect(apple.outcome == "ok" && apple.changes == Self.missed && apple.checked == Self.missed)
        #expect(statusCalls() == Self.missed, "one Get All Subscription Statuses per lapsed subscription, none for the others")
        #expect(
            try await harness.count("SELECT count(*) FROM purchases WHERE expires_at > \(Timestamp.milliseconds(harness.clock.now))")
                == Self.purchases)
        print("ReconcileScale app_store: \(Self.purchases) subscriptions, \(Self.missed) lapsed asked and corrected in \(elapsed)")
        #expect(try #require(await harness.app.app.reconcile.run().first { $0.provider == "app_store" }).checked == 0)
        #expect(statusCalls() == Self.missed)
    }
}
