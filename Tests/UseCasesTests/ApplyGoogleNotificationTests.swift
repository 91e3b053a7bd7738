import Domain
import Foundation
import Storage
import Testing
import TestSupport
import UseCases

@Suite("Google Play notifications and refreshes (ApplyGoogleNotification)")
struct ApplyGoogleNotificationTests {
    @Test("voidedPurchaseNotification: refunded at eventTimeMillis, without asking Google; a partial refund changes nothing")
    func voided() async throws {
        let play = try PlayBench()
        defer { Task { await play.stop() } }
        let now = play.bench.now
        try play.store(play.activeSubscription("tok-v", observedAt: now.addingTimeInterval(-86_400)))
        try play.store(play.activeSubscription("tok-partial", observedAt: now.addingTimeInterval(-86_400)))
        let eventTime = now.addingTimeInterval(-30)
        let partial = try await play.notifications.apply(
            token: PlayBench.rtdnToken,
            pushBody: play.push(
                .voidedPurchase(purchaseToken: "tok-partial", orderID: "GPA.2", productType: 2, refundType: 2), messageID: "m-p", eventTime: eventTime
            ))
        #expect(partial == .ignored)
        #expect(try play.purchase("tok-partial")?.status == .active)

        let outcome = try await play.notifications.apply(
            token: PlayBench.rtdnToken,
            pushBody: play.push(
                .voidedPurchase(purchaseToken: "tok-v", orderID: "GPA.1", productType: 1, refundType: 1), messageID: "m-v", eventTime: eventTime))
        #expect(outcome == .applied)
        let purchase = try #require(try play.purchase("tok-v"))
        #expect(purchase.status == .refunded)
        #expect(purchase.observedAt == eventTime)
        #expect(try play.purchaseUpdates().count == 1)
        #expect(play.google.apiRequestCount == 0, "a void needs no re-read")
        #expect(try play.count("webhook_events") == 2)
    }

    @Test("Another app's notification is accepted, logged at warning and stored nowhere; a test notification too")
    func anotherApp() async throws {
        let play = try PlayBench()
        defer { Task { await play.stop() } }
        let now = play.bench.now
        try play.store(play.activeSubscription("tok-a", observedAt: now.addingTimeInterval(-60)))
        play.google.setSubscription(token: "tok-a", state: .expired, productID: "pro_monthly", expiry: now)
        for (index, notification) in [
            FakeGooglePlay.RTDN.subscription(type: 13, purchaseToken: "tok-a", subscriptionID: "pro_monthly"),
            .voidedPurchase(purchaseToken: "tok-a", orderID: "GPA.1", productType: 1, refundType: 1)
        ].enumerated() {
            let outcome = try await play.notifications.apply(
                token: PlayBench.rtdnToken,
                pushBody: play.push(notification, messageID: "other-\(index)", eventTime: now, packageName: "com.other.app"))
            #expect(outcome == .ignored)
        }
        #expect(try play.purchase("tok-a")?.status == .active)
        #expect(try play.count("webhook_events") == 0)
        #expect(play.google.apiRequestCount == 0)
        let warnings = play.logs.lines.filter { $0.contains("google_notification_ignored") }
        #expect(warnings.count == 2)
        #expect(warnings.allSatisfy { $0.contains(#""level":"warning""#) && $0.contains("com.other.app") }, "\(warnings)")

        #expect(try await play.notifications.apply(token: PlayBench.rtdnToken, pushBody: play.push(.test, messageID: "t", eventTime: now)) == .test)
        #expect(try play.count("webhook_events") == 0)
    }

    @Test("A wrong or missing token and a body that is not an RTDN are still refused")
    func refused() async throws {
        let play = try PlayBench()
        defer { Task { await play.stop() } }
        let body = play.push(.test, messageID: "x", eventTime: play.bench.now)
        for token in ["wrong", nil] as [String?] {
            await #expect(throws: UseCaseError.self) { _ = try await play.notifications.apply(token: token, pushBody: body) }
        }
        await #expect(throws: UseCaseError.self) {
            _ = try await play.notifications.apply(token: PlayBench.rtdnToken, pushBody: Array(#"{"message":{"data":"!!"}}"#.utf8))
        }
    }

    @Test("After a void, a re-read of the same purchase (Google says canceled) keeps it refunded")
    func reReadAfterVoid() async throws {
        let play = try PlayBench()
        defer { Task { await play.stop() } }
        let now = play.bench.now
        play.google.setProduct(token: "tok-otp", productID: "coins_100", acknowledged: true)
        #expect(
            try await play.notifications.apply(
                token: PlayBench.rtdnToken,
                pushBody: play.push(.oneTimeProduct(type: 1, purchaseToken: "tok-otp", sku: "coins_100"), messageID: "p-1", eventTime: now))
                == .applied)
        #expect(try play.purchase("tok-otp")?.status == .active)
        play.bench.advance(60)
        play.google.voidPurchase(token: "tok-otp", voidedTime: play.bench.now)
        #expect(
            try await play.notifications.apply(
                token: PlayBench.rtdnToken,
                pushBody: play.push(
                    .voidedPurchase(purchaseToken: "tok-otp", orderID: "GPA.1", productType: 2, refundType: 1), messageID: "p-2",
                    eventTime: play.bench.now)) == .applied)
        play.bench.advance(60)
        // Google then sends the canceled notice; its re-read (purchaseState 1) arrives later than the void.
        #expect(
            try await play.notifications.apply(
                token: PlayBench.rtdnToken,
                pushBody: play.push(.oneTimeProduct(type: 2, purchaseToken: "tok-otp", sku: "coins_100"), messageID: "p-3", eventTime: play.bench.now)
            ) == .applied)
        #expect(try play.purchase("tok-otp")?.status == .refunded)
    }

    @Test("refreshSubscription re-reads subscriptionsv2, stores it, links the owner and acknowledges once")
    func refresh() async throws {
        let play = try PlayBench()
        defer { Task { await play.stop() } }
        let now = play.bench.now
        let bench = play.bench
        let account = try bench.database.writeSync { try AccountRepository.create(secrets: bench.secrets, on: $0, now: now) }
        try play.store(play.activeSubscription("tok-r", observedAt: now.addingTimeInterval(-30 * 86_400), days: -1))
        play.google.setSubscription(
            token: "tok-r", state: .active, productID: "pro_monthly", expiry: now.addingTimeInterval(29 * 86_400),
            obfuscatedAccountID: account.obfuscatedID)
        let applied = try #require(try await play.notifications.refreshSubscription(purchaseToken: "tok-r"))
        #expect(applied.stateChanged)
        #expect(applied.purchase.expiresAt == now.addingTimeInterval(29 * 86_400))
        #expect(try play.purchase("tok-r")?.accountID == account.id)
        #expect(play.google.acknowledgements == [.init(kind: "subscriptions", productID: "pro_monthly", purchaseToken: "tok-r")])
        let again = try #require(try await play.notifications.refreshSubscription(purchaseToken: "tok-r"))
        #expect(again.stateChanged == false)
        #expect(play.google.acknowledgements.count == 1)
        #expect(try await play.notifications.refreshSubscription(purchaseToken: "tok-unknown") == nil)
        #expect(try play.count("purchases", where: "external_id = 'tok-unknown'") == 0)
    }

    @Test("refreshSubscription keeps a void: a refunded subscription Google still calls active stays refunded")
    func refreshAfterVoid() async throws {
        let play = try PlayBench()
        defer { Task { await play.stop() } }
        let now = play.bench.now
        let expiry = now.addingTimeInterval(10 * 86_400)
        play.google.setSubscription(token: "tok-rv", state: .active, productID: "pro_monthly", expiry: expiry, acknowledged: true)
        _ = try await play.notifications.refreshSubscription(purchaseToken: "tok-rv")
        play.google.voidPurchase(token: "tok-rv", voidedTime: now, revokesSubscription: false)
        _ = try await play.notifications.apply(
            token: PlayBench.rtdnToken,
            pushBody: play.push(
                .voidedPurchase(purchaseToken: "tok-rv", orderID: "GPA.1", productType: 1, refundType: 1), messageID: "v", eventTime: now))
        play.bench.advance(3600)
        let applied = try #require(try await play.notifications.refreshSubscription(purchaseToken: "tok-rv"))
        #expect(applied.purchase.status == .refunded)
        // The next renewal is new money: access again.
        play.google.setSubscription(
            token: "tok-rv", state: .active, productID: "pro_monthly", expiry: expiry.addingTimeInterval(30 * 86_400), acknowledged: true)
        play.bench.advance(10 * 86_400)
        #expect(try await play.notifications.refreshSubscription(purchaseToken: "tok-rv")?.purchase.status == .active)
    }
}
