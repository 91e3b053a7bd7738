import Domain
import Foundation
import HTTPCore
import HTTPRouting
import Testing
import TestSupport

@testable import Web

@Suite("App Store notifications through /webhooks/apple")
struct StoresAppleWebhookTests {
    static let original = "2000000000000777"

    /// A harness and a signed-in account whose obfuscated id the app used as `appAccountToken`.
    static func setup(appleEnvironment: String = "Sandbox") async throws -> (StoresHarness, token: String, hint: String, accountID: String) {
        let harness = try await StoresHarness(appleEnvironment: appleEnvironment)
        let (accountID, token) = try await harness.signedInAccount()
        return (harness, token, try await harness.obfuscatedID(accountID), accountID)
    }

    func premiumOf(_ harness: StoresHarness, _ token: String) async -> [String: Any]? {
        StoresHarness.entitlement("premium", in: await harness.entitlements(bearer: token))
    }

    @Test("SUBSCRIBED, DID_RENEW, DID_FAIL_TO_RENEW (GRACE_PERIOD), EXPIRED are reflected in /api/v1/entitlements")
    func lifecycle() async throws {
        let (harness, firstToken, hint, accountID) = try await Self.setup()
        var token = firstToken
        defer { Task { await harness.stop() } }
        let t0 = harness.clock.now
        let firstEnd = t0.addingTimeInterval(30 * 86400)

        let subscribed = try await harness.appleNotification(
            FakeAppStoreNotification(
                notificationType: "SUBSCRIBED", subtype: "INITIAL_BUY", signedDate: t0,
                transaction: harness.transaction(Self.original, expires: firstEnd, signedAt: t0, appAccountToken: hint)))
        #expect(subscribed.status == .ok, "\(subscribed.text)")
        var premium = try #require(await premiumOf(harness, token))
        #expect(premium["active"] as? Bool == true)
        #expect(premium["source"] as? String == "app_store")
        #expect(premium["expires_at"] as? String == Timestamp.rfc3339(firstEnd))

        harness.clock.advance(30 * 86400)
        token = try await harness.accessToken(for: accountID)
        let secondEnd = firstEnd.addingTimeInterval(30 * 86400)
        let renewed = try await harness.appleNotification(
            FakeAppStoreNotification(
                notificationType: "DID_RENEW", signedDate: harness.clock.now,
                transaction: harness.transaction(Self.original, transactionID: "2000000000000778", expires: secondEnd, signedAt: harness.clock.now)))
        #expect(renewed.status == .ok)
        premium = try #require(await premiumOf(harness, token))
        #expect(premium["active"] as? Bool == true)
        #expect(premium["expires_at"] as? String == Timestamp.rfc3339(secondEnd))

        harness.clock.advance(30 * 86400 + 60)
        token = try await harness.accessToken(for: accountID)
        let graceEnd = harness.clock.now.addingTimeInterval(6 * 86400)
        let failed = try await harness.appleNotification(
            FakeAppStoreNotification(
                notificationType: "DID_FAIL_TO_RENEW", subtype: "GRACE_PERIOD", signedDate: harness.clock.now,
                transaction: harness.transaction(Self.original, transactionID: "2000000000000778", expires: secondEnd, signedAt: harness.clock.now),
                renewalInfo: FakeAppStoreRenewalInfo(
                    originalTransactionID: Self.original, gracePeriodExpiresDate: graceEnd,
                    isInBillingRetryPeriod: true, signedDate: harness.clock.now)))
        #expect(failed.status == .ok)
        #expect(try await harness.purchase(.appStore, Self.original)?.status == .inGracePeriod)
        premium = try #require(await premiumOf(harness, token))
        #expect(premium["active"] as? Bool == true, "a grace period keeps access")
        #expect(premium["expires_at"] as? String == Timestamp.rfc3339(graceEnd))

        harness.clock.advance(7 * 86400)
        token = try await harness.accessToken(for: accountID)
        let expired = try await harness.appleNotification(
            FakeAppStoreNotification(
                notificationType: "EXPIRED", subtype: "BILLING_RETRY", signedDate: harness.clock.now,
                transaction: harness.transaction(Self.original, transactionID: "2000000000000778", expires: secondEnd, signedAt: harness.clock.now)))
        #expect(expired.status == .ok)
        #expect(try await harness.purchase(.appStore, Self.original)?.status == .expired)
        #expect(try #require(await premiumOf(harness, token))["active"] as? Bool == false)
        #expect(try await harness.count("SELECT COUNT(*) FROM purchases") == 1)
        #expect(try await harness.count("SELECT COUNT(*) FROM webhook_events WHERE source = 'apple'") == 4)
    }

    @Test("REFUND and REVOKE end access at once, whatever the expiry")
    func refundAndRevoke() async throws {
        let (harness, token, hint, _) = try await Self.setup()
        defer { Task { await harness.stop() } }
        let now = harness.clock.now
        let end = now.addingTimeInterval(30 * 86400)
        for (index, original) in ["2000000000000801", "2000000000000802"].enumerated() {
            let response = try await harness.appleNotification(
                FakeAppStoreNotification(
                    notificationType: "SUBSCRIBED", signedDate: now.addingTimeInterval(Double(index)),
                    transaction: harness.transaction(original, expires: end, signedAt: now, appAccountToken: hint)))
            #expect(response.status == .ok)
        }
        let refund = try await harness.appleNotification(
            FakeAppStoreNotification(
                notificationType: "REFUND", signedDate: now.addingTimeInterval(60),
                transaction: harness.transaction(
                    "2000000000000801", expires: end, signedAt: now.addingTimeInterval(60),
                    revokedAt: now.addingTimeInterval(50), revocationReason: 0)))
        #expect(refund.status == .ok)
        #expect(try await harness.purchase(.appStore, "2000000000000801")?.status == .refunded)
        #expect(try #require(await premiumOf(harness, token))["active"] as? Bool == true, "the other subscription still grants premium")

        let revoke = try await harness.appleNotification(
            FakeAppStoreNotification(
                notificationType: "REVOKE", signedDate: now.addingTimeInterval(70),
                transaction: harness.transaction(
                    "2000000000000802", expires: end, signedAt: now.addingTimeInterval(70),
                    revokedAt: now.addingTimeInterval(65))))
        #expect(revoke.status == .ok)
        #expect(try await harness.purchase(.appStore, "2000000000000802")?.status == .revoked)
        #expect(try #require(await premiumOf(harness, token))["active"] as? Bool == false)
    }

    @Test("A notification arriving late (older signedDate) never moves the purchase back")
    func outOfOrder() async throws {
        let (harness, token, hint, _) = try await Self.setup()
        defer { Task { await harness.stop() } }
        let t0 = harness.clock.now
        let end = t0.addingTimeInterval(30 * 86400)
        let renewal = FakeAppStoreNotification(
            notificationType: "DID_RENEW", signedDate: t0,
            transaction: harness.transaction(Self.original, expires: end, signedAt: t0, appAccountToken: hint))
        let expiry = FakeAppStoreNotification(
            notificationType: "EXPIRED", subtype: "VOLUNTARY", signedDate: t0.addingTimeInterval(3600),
            transaction: harness.transaction(Self.original, expires: end, signedAt: t0.addingTimeInterval(3600), appAccountToken: hint))
        #expect(try await harness.appleNotification(expiry).status == .ok)
        let late = try await harness.appleNotification(renewal)
        #expect(late.status == .ok)
        #expect(late.jsonObject?["duplicate"] as? Bool == false, "a different notification is recorded")
        #expect(try await harness.purchase(.appStore, Self.original)?.status == .expired)
        #expect(try #require(await premiumOf(harness, token))["active"] as? Bool == false)
    }

    @Test("A repeated notificationUUID is 200 and does nothing twice")
    func duplicate() async throws {
        let (harness, token, hint, _) = try await Self.setup()
        defer { Task { await harness.stop() } }
        let now = harness.clock.now
        let body = try harness.pki.signer().notificationBody(
            FakeAppStoreNotification(
                notificationType: "SUBSCRIBED", notificationUUID: "6a1c0f3e-0000-4000-8000-000000000001", signedDate: now,
                transaction: harness.transaction(Self.original, expires: now.addingTimeInterval(86400), signedAt: now, appAccountToken: hint)))
        let first = await harness.app.send(.post, "/webhooks/apple", headers: ["Content-Type": "application/json"], bytes: body)
        #expect(first.jsonObject?["duplicate"] as? Bool == false)
        // Between the two deliveries the user asks for a refund; the repeat must not undo anything.
        let refund = try await harness.appleNotification(
            FakeAppStoreNotification(
                notificationType: "REFUND", signedDate: now,
                transaction: harness.transaction(
                    Self.original, expires: now.addingTimeInterval(86400), signedAt: now,
                    revokedAt: now, revocationReason: 1)))
        #expect(refund.status == .ok)
        let second = await harness.app.send(.post, "/webhooks/apple", headers: ["Content-Type": "application/json"], bytes: body)
        #expect(second.status == .ok)
        #expect(second.jsonObject?["duplicate"] as? Bool == true)
        #expect(try await harness.purchase(.appStore, Self.original)?.status == .refunded)
        #expect(try #require(await premiumOf(harness, token))["active"] as? Bool == false)
        #expect(try await harness.count("SELECT COUNT(*) FROM webhook_events WHERE source = 'apple'") == 2)
    }

    @Test("TEST is acknowledged with 200 and stores nothing")
    func testNotification() async throws {
        let (harness, _, _, _) = try await Self.setup()
        defer { Task { await harness.stop() } }
        let response = try await harness.appleNotification(FakeAppStoreNotification(notificationType: "TEST", signedDate: harness.clock.now))
        #expect(response.status == .ok)
        #expect(response.jsonObject?["test"] as? Bool == true)
        #expect(try await harness.count("SELECT COUNT(*) FROM webhook_events") == 0)
        #expect(try await harness.count("SELECT COUNT(*) FROM purchases") == 0)
    }

    @Test("A chain that does not verify, a forged signature or garbage is 400 with its kind, nothing stored")
    func rejected() async throws {
        let (harness, _, _, _) = try await Self.setup()
        defer { Task { await harness.stop() } }
        let now = harness.clock.now
        let subscribed = FakeAppStoreNotification(
            notificationType: "SUBSCRIBED", signedDate: now,
            transaction: harness.transaction(Self.original, expires: now.addingTimeInterval(86400), signedAt: now))
        for chain in [FakeApplePKI.Chain.leafWithoutOID, .intermediateWithoutOID] {
            let response = try await harness.appleNotification(subscribed, chain: chain)
            #expect(response.status == .badRequest)
            #expect(response.errorCode == "bad_request")
            let message = (response.jsonObject?["error"] as? [String: Any])?["message"] as? String ?? ""
            #expect(message.contains("invalid_certificate"), "\(message)")
        }
        // A signature by a key that is not the leaf's.
        var tampered = try harness.pki.signer().signNotification(subscribed).split(separator: ".").map(String.init)
        tampered[2] = String(tampered[2].reversed())
        let forged = await harness.app.send(
            .post, "/webhooks/apple", headers: ["Content-Type": "application/json"],
            body: #"{"signedPayload":"\#(tampered.joined(separator: "."))"}"#)
        #expect(forged.status == .badRequest)
        let garbage = await harness.app.send(
            .post, "/webhooks/apple", headers: ["Content-Type": "application/json"], body: #"{"signedPayload":"a.b"}"#)
        #expect(garbage.status == .badRequest)
        let neither = await harness.app.send(.post, "/webhooks/apple", headers: ["Content-Type": "application/json"], body: #"{"data":{}}"#)
        #expect(neither.status == .badRequest)
        #expect(try await harness.count("SELECT COUNT(*) FROM webhook_events") == 0)
        #expect(try await harness.count("SELECT COUNT(*) FROM purchases") == 0)
    }

    @Test(
        "Verified but not ours (another app's bundle id, the other environment either way) and version 1 notifications: 200 ignored, nothing stored")
    func ignored() async throws {
        for deployment in ["Sandbox", "Production"] {
            let (harness, token, hint, _) = try await Self.setup(appleEnvironment: deployment)
            defer { Task { await harness.stop() } }
            let now = harness.clock.now
            let other = deployment == "Sandbox" ? "Production" : "Sandbox"
            func subscribed(bundleID: String = StoresHarness.bundleID, environment: String, appAppleID: Int? = nil) -> FakeAppStoreNotification {
                FakeAppStoreNotification(
                    notificationType: "SUBSCRIBED", signedDate: now, environment: environment, bundleID: bundleID,
                    appAppleID: appAppleID ?? (environment == "Production" ? StoresHarness.appAppleID : nil),
                    transaction: harness.transaction(
                        Self.original, expires: now.addingTimeInterval(86400), signedAt: now,
                        environment: environment, appAccountToken: hint))
            }
            var cases = [subscribed(environment: other), subscribed(bundleID: "com.other.app", environment: deployment)]
            if deployment == "Production" { cases.append(subscribed(environment: deployment, appAppleID: 42)) }
            for notification in cases {
                let response = try await harness.appleNotification(notification)
                #expect(response.status == .ok, "\(deployment): \(response.text)")
                #expect(response.jsonObject?["received"] as? Bool == true)
                #expect(response.jsonObject?["ignored"] as? Bool == true)
            }
            let version1 = await harness.app.send(
                .post, "/webhooks/apple", headers: ["Content-Type": "application/json"],
                body: #"{"notification_type":"DID_RENEW","environment":"PROD","auto_renew_status":"true","unified_receipt":{"status":0}}"#)
            #expect(version1.status == .ok, "\(version1.text)")
            #expect(version1.jsonObject?["ignored"] as? Bool == true)
            #expect(try await harness.count("SELECT COUNT(*) FROM webhook_events") == 0)
            #expect(try await harness.count("SELECT COUNT(*) FROM purchases") == 0)
            #expect(await premiumOf(harness, token)?["active"] as? Bool != true)
        }
    }

    @Test("REFUND ends access, REFUND_REVERSED restores it; each change is dated by its notification's signedDate")
    func refundReversed() async throws {
        let (harness, firstToken, hint, accountID) = try await Self.setup()
        var token = firstToken
        defer { Task { await harness.stop() } }
        let bought = harness.clock.now
        let end = bought.addingTimeInterval(30 * 86400)
        let subscribed = try await harness.appleNotification(
            FakeAppStoreNotification(
                notificationType: "SUBSCRIBED", subtype: "INITIAL_BUY", signedDate: bought, status: 1,
                transaction: harness.transaction(Self.original, expires: end, signedAt: bought, appAccountToken: hint)))
        #expect(subscribed.status == .ok)

        harness.clock.advance(3 * 86400)
        token = try await harness.accessToken(for: accountID)
        let refundedAt = harness.clock.now
        let refund = try await harness.appleNotification(
            FakeAppStoreNotification(
                notificationType: "REFUND", signedDate: refundedAt, status: 5,
                transaction: harness.transaction(
                    Self.original, expires: end, signedAt: refundedAt, appAccountToken: hint,
                    revokedAt: refundedAt.addingTimeInterval(-60), revocationReason: 0)))
        #expect(refund.status == .ok)
        var stored = try #require(try await harness.purchase(.appStore, Self.original))
        #expect(stored.status == .refunded)
        #expect(stored.observedAt == refundedAt, "the refund's time is the notification's signedDate, not the purchase date")
        #expect(try #require(await premiumOf(harness, token))["active"] as? Bool == false)

        harness.clock.advance(86400)
        token = try await harness.accessToken(for: accountID)
        let reversedAt = harness.clock.now
        // Apple reverses the refund: the transaction no longer carries a revocation.
        let reversed = try await harness.appleNotification(
            FakeAppStoreNotification(
                notificationType: "REFUND_REVERSED", signedDate: reversedAt, status: 1,
                transaction: harness.transaction(Self.original, expires: end, signedAt: reversedAt, appAccountToken: hint)))
        #expect(reversed.status == .ok)
        stored = try #require(try await harness.purchase(.appStore, Self.original))
        #expect(stored.status == .active)
        #expect(stored.expiresAt == end)
        #expect(stored.observedAt == reversedAt)
        #expect(try #require(await premiumOf(harness, token))["active"] as? Bool == true)
    }

    @Test("In Production the app Apple id must match; a matching Production notification is applied")
    func productionAppAppleID() async throws {
        let (harness, token, hint, _) = try await Self.setup(appleEnvironment: "Production")
        defer { Task { await harness.stop() } }
        let now = harness.clock.now
        func notification(appAppleID: Int) -> FakeAppStoreNotification {
            FakeAppStoreNotification(
                notificationType: "SUBSCRIBED", signedDate: now, environment: "Production", appAppleID: appAppleID,
                transaction: harness.transaction(
                    Self.original, expires: now.addingTimeInterval(86400), signedAt: now,
                    environment: "Production", appAccountToken: hint))
        }
        let wrong = try await harness.appleNotification(notification(appAppleID: 42))
        #expect(wrong.status == .ok, "another app's notification is Apple's to stop sending")
        #expect(wrong.jsonObject?["ignored"] as? Bool == true)
        #expect(try await harness.count("SELECT COUNT(*) FROM purchases") == 0)
        let right = try await harness.appleNotification(notification(appAppleID: StoresHarness.appAppleID))
        #expect(right.status == .ok)
        #expect(try #require(await premiumOf(harness, token))["active"] as? Bool == true)
    }
}
