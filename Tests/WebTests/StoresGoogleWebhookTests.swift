import Domain
import Foundation
import HTTPCore
import HTTPRouting
import Testing
import TestSupport

@testable import Web

@Suite("Google Play notifications through /webhooks/google")
struct StoresGoogleWebhookTests {
    /// A harness and a signed-in account whose obfuscated id the app set at purchase.
    static func setup() async throws -> (StoresHarness, token: String, hint: String, accountID: String) {
        let harness = try await StoresHarness()
        let (accountID, token) = try await harness.signedInAccount()
        return (harness, token, try await harness.obfuscatedID(accountID), accountID)
    }

    func entitlement(_ harness: StoresHarness, _ token: String, id: String = "premium") async -> [String: Any]? {
        StoresHarness.entitlement(id, in: await harness.entitlements(bearer: token))
    }

    @Test("SUBSCRIPTION_PURCHASED: active, linked by the obfuscated account id, acknowledged once")
    func purchased() async throws {
        let (harness, token, hint, _) = try await Self.setup()
        defer { Task { await harness.stop() } }
        let expiry = harness.clock.now.addingTimeInterval(30 * 86400)
        harness.google.setSubscription(token: "tok-sub-1", state: .active, productID: "pro_monthly", expiry: expiry, obfuscatedAccountID: hint)
        let response = await harness.googleNotification(
            .subscription(type: 4, purchaseToken: "tok-sub-1", subscriptionID: "pro_monthly"), messageID: "m-1")
        #expect(response.status == .ok, "\(response.text)")
        let premium = try #require(await entitlement(harness, token))
        #expect(premium["active"] as? Bool == true)
        #expect(premium["source"] as? String == "play_store")
        #expect(harness.google.acknowledgements == [.init(kind: "subscriptions", productID: "pro_monthly", purchaseToken: "tok-sub-1")])
        #expect(harness.google.isAcknowledged(token: "tok-sub-1") == true)

        // A renewal re-reads the purchase, which is acknowledged now: no second acknowledgement.
        harness.google.setSubscription(
            token: "tok-sub-1", state: .active, productID: "pro_monthly", expiry: expiry.addingTimeInterval(30 * 86400),
            acknowledged: true, obfuscatedAccountID: hint)
        let renewed = await harness.googleNotification(
            .subscription(type: 2, purchaseToken: "tok-sub-1", subscriptionID: "pro_monthly"), messageID: "m-2")
        #expect(renewed.status == .ok)
        #expect(harness.google.acknowledgements.count == 1)
        #expect(try await harness.purchase(.playStore, "tok-sub-1")?.expiresAt == expiry.addingTimeInterval(30 * 86400))
    }

    @Test("CANCELED stays entitled until expiry; EXPIRED ends access")
    func canceledThenExpired() async throws {
        let (harness, firstToken, hint, accountID) = try await Self.setup()
        var token = firstToken
        defer { Task { await harness.stop() } }
        let expiry = harness.clock.now.addingTimeInterval(5 * 86400)
        harness.google.setSubscription(
            token: "tok-c", state: .canceled, productID: "pro_monthly", expiry: expiry, acknowledged: true, obfuscatedAccountID: hint)
        #expect(
            await harness.googleNotification(.subscription(type: 3, purchaseToken: "tok-c", subscriptionID: "pro_monthly"), messageID: "c-1").status
                == .ok)
        #expect(try await harness.purchase(.playStore, "tok-c")?.status == .canceled)
        #expect(try #require(await entitlement(harness, token))["active"] as? Bool == true)
        harness.clock.advance(5 * 86400 + 1)
        token = try await harness.accessToken(for: accountID)
        #expect(try #require(await entitlement(harness, token))["active"] as? Bool == false, "paid time is over")

        harness.google.setSubscription(
            token: "tok-c", state: .expired, productID: "pro_monthly", expiry: expiry, acknowledged: true, obfuscatedAccountID: hint)
        #expect(
            await harness.googleNotification(.subscription(type: 13, purchaseToken: "tok-c", subscriptionID: "pro_monthly"), messageID: "c-2").status
                == .ok)
        #expect(try await harness.purchase(.playStore, "tok-c")?.status == .expired)
        #expect(harness.google.acknowledgements.isEmpty, "an acknowledged purchase is not acknowledged again")
    }

    @Test("A voided purchase is refunded at the notification's time, and stays so when Google is read again")
    func voided() async throws {
        let (harness, token, hint, _) = try await Self.setup()
        defer { Task { await harness.stop() } }
        harness.google.setSubscription(
            token: "tok-v", state: .active, productID: "pro_monthly", expiry: harness.clock.now.addingTimeInterval(86400),
            acknowledged: true, obfuscatedAccountID: hint)
        #expect(
            await harness.googleNotification(.subscription(type: 4, purchaseToken: "tok-v", subscriptionID: "pro_monthly"), messageID: "v-1").status
                == .ok)
        #expect(try #require(await entitlement(harness, token))["active"] as? Bool == true)
        harness.clock.advance(60)
        let voidedAt = harness.clock.now.addingTimeInterval(-5)
        harness.google.voidPurchase(token: "tok-v", voidedTime: voidedAt, revokesSubscription: false)
        let void = await harness.googleNotification(
            .voidedPurchase(purchaseToken: "tok-v", orderID: "GPA.1", productType: 1, refundType: 1), messageID: "v-2", eventTime: voidedAt)
        #expect(void.status == .ok)
        #expect(void.jsonObject?["duplicate"] as? Bool == false)
        let purchase = try #require(try await harness.purchase(.playStore, "tok-v"))
        #expect(purchase.status == .refunded)
        #expect(purchase.observedAt == voidedAt)
        #expect(try #require(await entitlement(harness, token))["active"] as? Bool == false)

        // A later notification re-reads Google, which still says ACTIVE for the refunded period.
        harness.clock.advance(60)
        #expect(
            await harness.googleNotification(.subscription(type: 2, purchaseToken: "tok-v", subscriptionID: "pro_monthly"), messageID: "v-3").status
                == .ok)
        #expect(try await harness.purchase(.playStore, "tok-v")?.status == .refunded)
        #expect(try #require(await entitlement(harness, token))["active"] as? Bool == false)
    }

    @Test("A quantity-based partial refund changes nothing")
    func partialRefund() async throws {
        let (harness, token, hint, _) = try await Self.setup()
        defer { Task { await harness.stop() } }
        harness.google.setProduct(token: "tok-q", productID: "coins_lifetime", acknowledged: true, obfuscatedAccountID: hint)
        #expect(
            await harness.googleNotification(.oneTimeProduct(type: 1, purchaseToken: "tok-q", sku: "coins_lifetime"), messageID: "q-1").status == .ok)
        harness.google.voidPurchase(token: "tok-q", voidedTime: harness.clock.now, voidedQuantity: 1)
        let partial = await harness.googleNotification(
            .voidedPurchase(purchaseToken: "tok-q", orderID: "GPA.2", productType: 2, refundType: 2), messageID: "q-2")
        #expect(partial.status == .ok)
        #expect(try await harness.purchase(.playStore, "tok-q")?.status == .active)
        #expect(try #require(await entitlement(harness, token, id: "lifetime"))["active"] as? Bool == true)
    }

    @Test("Another app's notification is 200, logged at warning, with nothing stored and Google not asked")
    func anotherApp() async throws {
        let (harness, _, _, _) = try await Self.setup()
        defer { Task { await harness.stop() } }
        harness.google.setSubscription(token: "tok-x", state: .active, productID: "pro_monthly", expiry: harness.clock.now.addingTimeInterval(86400))
        let response = await harness.googleNotification(
            .subscription(type: 4, purchaseToken: "tok-x", subscriptionID: "pro_monthly"), messageID: "x-1", packageName: "com.other.app")
        #expect(response.status == .ok, "\(response.text)")
        #expect(response.jsonObject?["received"] as? Bool == true)
        #expect(harness.google.apiRequestCount == 0)
        #expect(try await harness.count("SELECT COUNT(*) FROM webhook_events") == 0)
        #expect(try await harness.count("SELECT COUNT(*) FROM purchases") == 0)
        #expect(harness.app.logs.lines.contains { $0.contains("google_notification_ignored") && $0.contains(#""level":"warning""#) })
    }

    @Test("A one-time product is read from products/{sku}, stored without expiry and acknowledged once")
    func oneTimeProduct() async throws {
        let (harness, token, hint, _) = try await Self.setup()
        defer { Task { await harness.stop() } }
        harness.google.setProduct(token: "tok-p", productID: "coins_lifetime", obfuscatedAccountID: hint)
        let response = await harness.googleNotification(.oneTimeProduct(type: 1, purchaseToken: "tok-p", sku: "coins_lifetime"), messageID: "p-1")
        #expect(response.status == .ok, "\(response.text)")
        let lifetime = try #require(await entitlement(harness, token, id: "lifetime"))
        #expect(lifetime["active"] as? Bool == true)
        #expect(lifetime["expires_at"] is NSNull)
        #expect(harness.google.acknowledgements == [.init(kind: "products", productID: "coins_lifetime", purchaseToken: "tok-p")])
    }

    @Test("A linked purchase token (upgrade, resubscribe) collapses into the one purchase row")
    func linkedToken() async throws {
        let (harness, token, hint, _) = try await Self.setup()
        defer { Task { await harness.stop() } }
        let expiry = harness.clock.now.addingTimeInterval(86400)
        harness.google.setSubscription(
            token: "tok-old", state: .active, productID: "pro_monthly", expiry: expiry, acknowledged: true, obfuscatedAccountID: hint)
        #expect(
            await harness.googleNotification(.subscription(type: 4, purchaseToken: "tok-old", subscriptionID: "pro_monthly"), messageID: "l-1").status
                == .ok)
        harness.google.setSubscription(
            token: "tok-new", state: .active, productID: "pro_monthly", expiry: expiry.addingTimeInterval(30 * 86400),
            acknowledged: true, linkedPurchaseToken: "tok-old", obfuscatedAccountID: hint)
        #expect(
            await harness.googleNotification(.subscription(type: 4, purchaseToken: "tok-new", subscriptionID: "pro_monthly"), messageID: "l-2").status
                == .ok)
        #expect(try await harness.count("SELECT COUNT(*) FROM purchases WHERE platform = 'play_store'") == 1)
        let old = try #require(try await harness.purchase(.playStore, "tok-old"))
        let new = try #require(try await harness.purchase(.playStore, "tok-new"))
        #expect(old.id == new.id)
        #expect(new.externalID == "tok-new")
        #expect(new.expiresAt == expiry.addingTimeInterval(30 * 86400))
        #expect(try #require(await entitlement(harness, token))["active"] as? Bool == true)

        // Google then expires the replaced subscription and says so for its token, later: the old
        // order's end is not the purchase's end (it now goes by the new token).
        harness.clock.advance(60)
        harness.google.setSubscription(
            token: "tok-old", state: .expired, productID: "pro_monthly", expiry: harness.clock.now,
            acknowledged: true, obfuscatedAccountID: hint)
        #expect(
            await harness.googleNotification(.subscription(type: 13, purchaseToken: "tok-old", subscriptionID: "pro_monthly"), messageID: "l-3")
                .status == .ok)
        let kept = try #require(try await harness.purchase(.playStore, "tok-new"))
        #expect(kept.status == .active)
        #expect(kept.expiresAt == expiry.addingTimeInterval(30 * 86400))
        #expect(try #require(await entitlement(harness, token))["active"] as? Bool == true, "the upgrade keeps access")
    }

    @Test("A repeated messageId is 200 and neither re-reads Google nor changes anything")
    func duplicateMessage() async throws {
        let (harness, _, _, _) = try await Self.setup()
        defer { Task { await harness.stop() } }
        harness.google.setSubscription(token: "tok-d", state: .active, productID: "pro_monthly", expiry: harness.clock.now.addingTimeInterval(86400))
        let first = await harness.googleNotification(.subscription(type: 4, purchaseToken: "tok-d", subscriptionID: "pro_monthly"), messageID: "d-1")
        #expect(first.jsonObject?["duplicate"] as? Bool == false)
        let calls = harness.google.apiRequestCount
        harness.google.setSubscription(token: "tok-d", state: .expired, productID: "pro_monthly", expiry: harness.clock.now, acknowledged: true)
        let second = await harness.googleNotification(.subscription(type: 4, purchaseToken: "tok-d", subscriptionID: "pro_monthly"), messageID: "d-1")
        #expect(second.status == .ok)
        #expect(second.jsonObject?["duplicate"] as? Bool == true)
        #expect(harness.google.apiRequestCount == calls)
        #expect(try await harness.purchase(.playStore, "tok-d")?.status == .active)
        #expect(harness.google.acknowledgements.count == 1)
    }

    @Test("A wrong or missing token or a malformed body is 400 with nothing stored")
    func rejected() async throws {
        let (harness, _, _, _) = try await Self.setup()
        defer { Task { await harness.stop() } }
        harness.google.setSubscription(token: "tok-r", state: .active, productID: "pro_monthly", expiry: harness.clock.now.addingTimeInterval(86400))
        let notification = FakeGooglePlay.RTDN.subscription(type: 4, purchaseToken: "tok-r", subscriptionID: "pro_monthly")
        #expect(await harness.googleNotification(notification, messageID: "r-1", token: "wrong").status == .badRequest)
        #expect(await harness.googleNotification(notification, messageID: "r-2", token: nil).status == .badRequest)
        #expect(await harness.googleNotification(notification, messageID: "r-3", token: StoresHarness.rtdnToken + "x").status == .badRequest)
        let malformed = await harness.app.send(
            .post, "/webhooks/google?token=\(StoresHarness.rtdnToken)", headers: ["Content-Type": "application/json"],
            body: #"{"message":{"data":"!!"}}"#)
        #expect(malformed.status == .badRequest)
        #expect(harness.google.apiRequestCount == 0)
        #expect(try await harness.count("SELECT COUNT(*) FROM webhook_events") == 0)
        #expect(try await harness.count("SELECT COUNT(*) FROM purchases") == 0)
    }

    @Test("The test notification is 200 and stores nothing")
    func testNotification() async throws {
        let (harness, _, _, _) = try await Self.setup()
        defer { Task { await harness.stop() } }
        let response = await harness.googleNotification(.test, messageID: "t-1")
        #expect(response.status == .ok)
        #expect(response.jsonObject?["test"] as? Bool == true)
        #expect(try await harness.count("SELECT COUNT(*) FROM webhook_events") == 0)
    }

    @Test("Google down: 503 with nothing written; the redelivery succeeds and acknowledges once")
    func outageThenRetry() async throws {
        let (harness, token, hint, _) = try await Self.setup()
        defer { Task { await harness.stop() } }
        harness.google.setSubscription(
            token: "tok-o", state: .active, productID: "pro_monthly", expiry: harness.clock.now.addingTimeInterval(86400),
            obfuscatedAccountID: hint)
        harness.google.setOutage(true)
        let notification = FakeGooglePlay.RTDN.subscription(type: 4, purchaseToken: "tok-o", subscriptionID: "pro_monthly")
        let down = await harness.googleNotification(notification, messageID: "o-1")
        #expect(down.status == .serviceUnavailable)
        #expect(down.errorCode == "upstream_unavailable")
        #expect(try await harness.count("SELECT COUNT(*) FROM webhook_events") == 0)
        #expect(try await harness.count("SELECT COUNT(*) FROM purchases") == 0)
        harness.google.setOutage(false)
        let retry = await harness.googleNotification(notification, messageID: "o-1")
        #expect(retry.status == .ok)
        #expect(retry.jsonObject?["duplicate"] as? Bool == false)
        #expect(try #require(await entitlement(harness, token))["active"] as? Bool == true)
        #expect(harness.google.acknowledgements.count == 1)
    }
}
