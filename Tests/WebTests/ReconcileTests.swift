import Domain
import Foundation
import HTTPCore
import Testing
import TestSupport

@testable import App
@testable import UseCases

/// What the reconciler finds when notifications never arrived, through the real clients against
/// the fakes: Stripe's `GET /v1/events`, Apple's notification history and subscription statuses,
/// Google's voided purchases and `subscriptionsv2`.
@Suite("Reconciler: nothing missed stays missed")
struct ReconcileTests {
    static func report(_ reports: [ReconcilePurchases.ProviderReport], _ provider: String) -> ReconcilePurchases.ProviderReport? {
        reports.first { $0.provider == provider }
    }

    static func premium(_ harness: CheckoutHarness) async throws -> Bool {
        try await harness.count(
            "SELECT count(*) FROM purchases WHERE status IN ('active', 'canceled') AND expires_at > \(Timestamp.milliseconds(harness.clock.now))") > 0
    }

    @Test("Stripe: a paid checkout whose webhooks never came is found, its code mailed once; a second run changes nothing")
    func stripeMissedFirstPurchase() async throws {
        let harness = try CheckoutHarness()
        let id = try await harness.startCheckout()
        try harness.pay(id)
        // The buyer closed the tab and no webhook was delivered.
        harness.clock.advance(900)
        #expect(try await harness.count("SELECT count(*) FROM purchases") == 0)
        let first = await harness.app.app.reconcile.run()
        let stripe = try #require(Self.report(first, "stripe"))
        #expect(stripe.outcome == "ok")
        #expect(stripe.changes == 3, "checkout.session.completed, customer.subscription.created, invoice.paid")
        #expect(try await Self.premium(harness))
        #expect(try await harness.count("SELECT count(*) FROM mail_outbox") == 1)
        #expect(try await harness.count("SELECT count(*) FROM redemption_codes") == 1)

        let second = await harness.app.app.reconcile.run()
        #expect(Self.report(second, "stripe")?.changes == 0)
        // Reading from the stored cursor (less a short overlap): those events are not read again.
        #expect(Self.report(second, "stripe")?.checked == 0)
        // Read again on purpose (`--since`), each is a duplicate: nothing is done twice.
        let again = await harness.app.app.reconcile.run(since: harness.clock.now.addingTimeInterval(-86_400))
        #expect(Self.report(again, "stripe")?.checked == 3 && Self.report(again, "stripe")?.changes == 0)
        #expect(try await harness.count("SELECT count(*) FROM mail_outbox") == 1)
    }

    @Test("Stripe: an event the client cannot read is logged and skipped; the events around it are applied and the cursor moves on")
    func stripeUnreadableEvent() async throws {
        let harness = try CheckoutHarness()
        let monthly = try await harness.startCheckout()
        try harness.pay(monthly)
        for event in harness.stripe.events { #expect(await harness.deliver(event).status == .ok) }
        let subscription = try #require(harness.stripe.session(id: monthly)?.subscriptionID)

        harness.clock.advance(60)
        // A subscription object with no status, customer or livemode: not one this client can read.
        let unreadable = harness.stripe.recordEvent("customer.subscription.updated", object: ["id": subscription, "object": "subscription"])
        harness.clock.advance(60)
        _ = try harness.stripe.updateSubscription(id: subscription, status: "canceled")
        harness.clock.advance(60)
        let first = try #require(Self.report(await harness.app.app.reconcile.run(), "stripe"))
        #expect(first.outcome == "ok", "\(first)")
        #expect(first.changes == 1, "the cancellation after the unreadable event is applied")
        #expect(try await !Self.premium(harness))
        #expect(harness.app.logs.lines.contains { $0.contains("stripe_event_ignored") && $0.contains(unreadable.id) }, "\(harness.app.logs.lines)")
        let second = try #require(Self.report(await harness.app.app.reconcile.run(), "stripe"))
        #expect(second.outcome == "ok" && second.changes == 0)
    }

    @Test("Stripe: a missed cancellation ends access, a missed renewal extends it, a missed refund ends a lifetime purchase")
    func stripeMissedChanges() async throws {
        let harness = try CheckoutHarness()
        let monthly = try await harness.startCheckout()
        try harness.pay(monthly)
        for event in harness.stripe.events { #expect(await harness.deliver(event).status == .ok) }
        let subscription = try #require(harness.stripe.session(id: monthly)?.subscriptionID)
        #expect(try await Self.premium(harness))

        // A renewal Stripe sent while the endpoint was down past its retries.
        harness.clock.advance(30 * 86_400 - 600)
        _ = try harness.stripe.renewSubscription(id: subscription)
        harness.clock.advance(1_200)
        #expect(try await !Self.premium(harness), "the recorded period is over")
        #expect(Self.report(await harness.app.app.reconcile.run(), "stripe")?.changes == 2)
        #expect(try await Self.premium(harness))
        let periodEnd = Timestamp.milliseconds(try #require(harness.stripe.subscription(id: subscription)).currentPeriodEnd)
        #expect(try await harness.count("SELECT count(*) FROM purchases WHERE expires_at = \(periodEnd)") == 1)

        // A cancellation that never arrived.
        harness.clock.advance(86_400)
        _ = try harness.stripe.updateSubscription(id: subscription, status: "canceled")
        harness.clock.advance(60)
        #expect(Self.report(await harness.app.app.reconcile.run(), "stripe")?.changes == 1)
        #expect(try await !Self.premium(harness))
        #expect(try await harness.count("SELECT count(*) FROM purchases WHERE status = 'expired'") == 1)

        // A one-time purchase refunded with the webhook lost.
        let lifetime = try await harness.startCheckout("plan=lifetime&app_user_id=user-2&email=two%40example.com")
        try harness.pay(lifetime, email: "two@example.com")
        let completed = try #require(harness.stripe.events.last { $0.type == "checkout.session.completed" })
        #expect(await harness.deliver(completed).status == .ok)
        harness.clock.advance(3_600)
        _ = try harness.stripe.refund(paymentIntentID: try #require(harness.stripe.session(id: lifetime)?.paymentIntentID))
        harness.clock.advance(60)
        #expect(Self.report(await harness.app.app.reconcile.run(), "stripe")?.changes == 1)
        #expect(try await harness.count("SELECT count(*) FROM purchases WHERE status = 'refunded'") == 1)
    }

    @Test("Stripe: two runs at once apply a missed change once; an outage is retried at the next run from the same cursor")
    func stripeConcurrentAndOutage() async throws {
        let harness = try CheckoutHarness()
        let id = try await harness.startCheckout()
        try harness.pay(id)
        harness.clock.advance(60)
        async let a = harness.app.app.reconcile.run()
        async let b = harness.app.app.reconcile.run()
        let reports = [Self.report(await a, "stripe"), Self.report(await b, "stripe")].compactMap { $0 }
        #expect(reports.map(\.changes).reduce(0, +) == 3)
        #expect(reports.contains { $0.outcome == "busy" } || reports.contains { $0.changes == 0 })
        #expect(try await harness.count("SELECT count(*) FROM mail_outbox") == 1)
        #expect(try await harness.count("SELECT count(*) FROM purchases") == 1)

        let subscription = try #require(harness.stripe.session(id: id)?.subscriptionID)
        harness.clock.advance(86_400)
        _ = try harness.stripe.updateSubscription(id: subscription, status: "canceled")
        harness.stripe.failNextRequests(status: 500)
        let down = try #require(Self.report(await harness.app.app.reconcile.run(), "stripe"))
        #expect(down.outcome == "unavailable" && down.changes == 0)
        let admin = await harness.app.send(.get, "/admin/v1/reconcile", headers: TestApp.adminHeaders)
        #expect(admin.status == .ok)
        let provider = try #require((admin.jsonObject?["providers"] as? [[String: Any]])?.first)
        #expect(provider["provider"] as? String == "stripe" && provider["last_outcome"] as? String == "unavailable")
        #expect(provider["changes_total"] as? Int == 3 && provider["runs"] as? Int == 2 && provider["running"] as? Bool == false)
        #expect(await harness.app.send(.get, "/admin/v1/reconcile").status == .unauthorized)

        let back = try #require(Self.report(await harness.app.app.reconcile.run(), "stripe"))
        #expect(back.outcome == "ok" && back.changes == 1)
        #expect(try await !Self.premium(harness))
        let metrics = await harness.app.send(.get, "/metrics").text
        #expect(metrics.contains(#"tollgate_reconcile_changes_total{provider="stripe"} 4"#))
        #expect(metrics.contains(#"tollgate_reconcile_runs_total{provider="stripe",outcome="unavailable"} 1"#))
        #expect(metrics.contains(#"tollgate_reconcile_lag_seconds{provider="stripe"}"#))
    }

    @Test("App Store: a renewal Apple sent but we never received is applied from the notification history, once")
    func appleHistory() async throws {
        let harness = try await StoresHarness()
        defer { Task { await harness.stop() } }
        let t0 = harness.clock.now
        let original = "2000000000009000"
        let firstEnd = t0.addingTimeInterval(30 * 86_400)
        let subscribed = try await harness.appleNotification(
            FakeAppStoreNotification(
                notificationType: "SUBSCRIBED", subtype: "INITIAL_BUY", signedDate: t0,
                transaction: harness.transaction(original, expires: firstEnd, signedAt: t0)))
        #expect(subscribed.status == .ok)
        harness.clock.advance(30 * 86_400 - 3_600)
        let secondEnd = firstEnd.addingTimeInterval(30 * 86_400)
        try harness.apple.send(
            FakeAppStoreNotification(
                notificationType: "DID_RENEW", signedDate: harness.clock.now,
                transaction: harness.transaction(original, transactionID: "2000000000009001", expires: secondEnd, signedAt: harness.clock.now)),
            signer: harness.pki.signer(), result: "NO_RESPONSE")
        harness.clock.advance(7_200)
        #expect(try await harness.purchase(.appStore, original)?.isEntitled(at: harness.clock.now) == false)

        let apple = try #require(Self.report(await harness.app.app.reconcile.run(), "app_store"))
        #expect(apple.outcome == "ok" && apple.changes == 1, "the SUBSCRIBED we received is a duplicate; the DID_RENEW is new")
        let purchase = try #require(try await harness.purchase(.appStore, original))
        #expect(purchase.expiresAt == secondEnd && purchase.isEntitled(at: harness.clock.now))
        #expect(Self.report(await harness.app.app.reconcile.run(), "app_store")?.changes == 0)
    }

    @Test("App Store: a subscription whose period ended without news is asked once: renewed stays, expired ends")
    func appleLapsed() async throws {
        let harness = try await StoresHarness()
        defer { Task { await harness.stop() } }
        let t0 = harness.clock.now
        let signer = harness.pki.signer()
        var ends: [String: Date] = [:]
        for (original, user) in [("2000000000009100", "renewed"), ("2000000000009200", "lapsed")] {
            let periods = try harness.apple.addSubscription(
                originalTransactionID: original, bundleID: StoresHarness.bundleID, start: t0.addingTimeInterval(-25 * 86_400), periods: 1,
                environment: .sandbox, signer: signer, customer: user)
            ends[original] = periods.last?.expiresDate
            let response = try await harness.receipts(["user_id": user, "original_transaction_id": original], platform: "APP_STORE")
            #expect(response.status == .ok, "\(response.text)")
        }
        // At Apple the first renews; no notification of it reaches us (nor the second's expiry).
        let renewedEnd = try #require(ends["2000000000009100"]).addingTimeInterval(30 * 86_400)
        try harness.apple.addTransaction(
            FakeAppStoreTransaction(
                transactionID: "2000000000009101", originalTransactionID: "2000000000009100", bundleID: StoresHarness.bundleID,
                purchaseDate: try #require(ends["2000000000009100"]), expiresDate: renewedEnd, environment: "Sandbox",
                signedDate: try #require(ends["2000000000009100"]), originalPurchaseDate: t0.addingTimeInterval(-25 * 86_400)),
            signer: signer, environment: .sandbox, customer: "renewed")
        harness.clock.advance(5 * 86_400 + 3_600)

        let apple = try #require(Self.report(await harness.app.app.reconcile.run(), "app_store"))
        #expect(apple.outcome == "ok" && apple.changes == 2)
        let renewed = try #require(try await harness.purchase(.appStore, "2000000000009100"))
        #expect(renewed.expiresAt == renewedEnd && renewed.isEntitled(at: harness.clock.now))
        #expect(try await harness.purchase(.appStore, "2000000000009200")?.status == .expired)
        let asked = harness.apple.requests.filter { $0.path.contains("/inApps/v1/subscriptions/") }.count
        #expect(Self.report(await harness.app.app.reconcile.run(), "app_store")?.changes == 0)
        #expect(harness.apple.requests.filter { $0.path.contains("/inApps/v1/subscriptions/") }.count == asked, "each period end is asked once")
    }

    @Test("Google Play: a void never notified ends access (refunded); a renewal never notified is read again")
    func playMissed() async throws {
        let harness = try await StoresHarness()
        defer { Task { await harness.stop() } }
        let now = harness.clock.now
        for token in ["tok-void", "tok-renew"] {
            harness.google.setSubscription(token: token, state: .active, productID: "pro_monthly", expiry: now.addingTimeInterval(86_400))
            let body: [String: Any] = ["user_id": "u-\(token)", "store_product_id": "pro_monthly", "purchase_token": token]
            #expect(try await harness.receipts(body, platform: "PLAY_STORE").status == .ok)
        }
        harness.clock.advance(3_600)
        harness.google.voidPurchase(token: "tok-void", voidedTime: harness.clock.now)
        let renewedExpiry = now.addingTimeInterval(31 * 86_400)
        harness.google.setSubscription(token: "tok-renew", state: .active, productID: "pro_monthly", expiry: renewedExpiry, acknowledged: true)
        harness.clock.advance(86_400)

        let play = try #require(Self.report(await harness.app.app.reconcile.run(), "play_store"))
        #expect(play.outcome == "ok" && play.changes == 2)
        #expect(try await harness.purchase(.playStore, "tok-void")?.status == .refunded)
        let renewed = try #require(try await harness.purchase(.playStore, "tok-renew"))
        #expect(renewed.expiresAt == renewedExpiry && renewed.isEntitled(at: harness.clock.now))
        #expect(Self.report(await harness.app.app.reconcile.run(), "play_store")?.changes == 0)

        harness.google.setOutage(true)
        harness.clock.advance(60)
        let down = try #require(Self.report(await harness.app.app.reconcile.run(), "play_store"))
        #expect(down.outcome == "unavailable")
    }
}
