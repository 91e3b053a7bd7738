import Domain
import Foundation
import JSON
import HTTPCore
import HTTPRouting
import Testing
import TestSupport
import Synchronization
import UseCases

@testable import App
@testable import Web

/// Events to the app's backend, end to end: the flows that cause each type, delivered to a
/// receiver on loopback that verifies every request with the Standard Webhooks algorithm.
@Suite("Events to the app's backend")
struct EventsTests {
    static let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

    static func events(_ receiver: FakeEventReceiver, types: [String] = ["*"]) -> [String: Any] {
        ["endpoints": [["url": receiver.url, "secret": secret, "types": types]]]
    }

    /// Runs the app's delivery worker while `body` runs.
    static func delivering<T>(_ app: TestApp, _ body: () async throws -> T) async rethrows -> T {
        let worker = app.app.workers.events
        let task = Task { await worker.run() }
        defer {
            worker.stop()
            task.cancel()
        }
        return try await body()
    }

    /// Every request verified, carried its event's id as `webhook-id`, and leaked no secret.
    static func expectClean(_ received: [FakeEventReceiver.Received], secrets: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        for request in received {
            #expect(request.verified, "signature of \(request.type) does not verify", sourceLocation: sourceLocation)
            #expect(request.webhookID == request.id && request.id.hasPrefix("evt_"), sourceLocation: sourceLocation)
            for secret in secrets where !secret.isEmpty {
                #expect(!request.text.contains(secret), "\(request.type) carries a secret", sourceLocation: sourceLocation)
            }
        }
    }

    /// Events may arrive in any order (several in flight): receivers order one account's by `sequence`.
    static func sequence(_ event: FakeEventReceiver.Received) -> Int { event.json["sequence"] as? Int ?? 0 }

    static func purchase(_ event: FakeEventReceiver.Received) -> [String: Any] { event.data["purchase"] as? [String: Any] ?? [:] }

    @Test("Web purchase, redemption, switch and refund each send their events, signed, in per-account order, with attribution and no code")
    func webPurchaseFlow() async throws {
        let receiver = try FakeEventReceiver(secret: Self.secret)
        defer { Task { await receiver.stop() } }
        let harness = try CheckoutHarness(extra: ["events": Self.events(receiver)])
        try await Self.delivering(harness.app) {
            let id = try await harness.startCheckout("plan=lifetime&email=buyer%40example.com&utm_source=newsletter&utm_campaign=spring")
            try harness.pay(id)
            #expect(await harness.webhook("checkout.session.completed", object: try #require(harness.stripe.sessionObject(id: id))).status == .ok)
            #expect(await receiver.wait { Set($0.map(\.type)).isSuperset(of: ["purchase.created", "code.issued"]) })
            let code = try #require(CheckoutHarness.code(in: await harness.successPage(id)))

            #expect(await harness.redeem(code, appUserID: "user-1").status == .ok)
            #expect(await receiver.wait { $0.contains { $0.type == "code.redeemed" } })
            #expect(await harness.redeem(code, appUserID: "user-2").status == .ok)
            #expect(await receiver.wait { $0.contains { $0.type == "account.switched" } })

            let intent = try #require(harness.stripe.session(id: id)?.paymentIntentID)
            harness.clock.advance(60)
            #expect(await harness.deliver(try harness.stripe.refund(paymentIntentID: intent)).status == .ok)
            #expect(
                await receiver.wait { $0.contains { $0.type == "purchase.updated" } && $0.filter { $0.type == "entitlements.changed" }.count >= 2 })

            let received = receiver.accepted
            Self.expectClean(received, secrets: [code, String(code.suffix(4)), "buyer@example.com"])
            let types = received.map(\.type)
            #expect(
                Set(types) == [
                    "purchase.created", "code.issued", "account.created", "entitlements.changed", "code.redeemed", "account.switched",
                    "purchase.updated"
                ])
            let created = try #require(received.first { $0.type == "purchase.created" })
            #expect(Self.purchase(created)["platform"] as? String == "stripe")
            #expect(Self.purchase(created)["product_id"] as? String == "price_lifetime")
            #expect(Self.purchase(created)["external_id"] as? String == intent)
            #expect(created.data["stripe_customer_id"] != nil)
            let attribution = try #require(created.data["attribution"] as? [String: Any])
            #expect(attribution["utm_source"] as? String == "newsletter" && attribution["utm_campaign"] as? String == "spring")

            let redeemed = try #require(received.first { $0.type == "code.redeemed" })
            let accountID = try #require(redeemed.data["account_id"] as? String)
            #expect(redeemed.data["app_user_id"] as? String == "user-1")
            #expect(redeemed.data["app_user_ids"] as? [String] == ["user-1"])
            #expect(redeemed.data["obfuscated_account_id"] as? String != nil)

            let switched = try #require(received.first { $0.type == "account.switched" })
            #expect(switched.data["account_id"] as? String == accountID)
            #expect(switched.data["app_user_id"] as? String == "user-2")
            #expect(Set(switched.data["app_user_ids"] as? [String] ?? []) == ["user-1", "user-2"])

            let updated = try #require(received.first { $0.type == "purchase.updated" })
            #expect(Self.purchase(updated)["status"] as? String == "refunded")
            let last = try #require(received.filter { $0.type == "entitlements.changed" }.max { Self.sequence($0) < Self.sequence($1) })
            #expect((last.data["entitlements"] as? [[String: Any]])?.first?["active"] as? Bool == false)
            let first = try #require(received.filter { $0.type == "entitlements.changed" }.min { Self.sequence($0) < Self.sequence($1) })
            #expect((first.data["entitlements"] as? [[String: Any]])?.first?["id"] as? String == "premium")
            #expect((first.data["entitlements"] as? [[String: Any]])?.first?["active"] as? Bool == true)

            // Per-account sequence: the account's events count 1, 2, 3... in the order they happened.
            let sequences = received.filter { $0.data["account_id"] as? String == accountID }.compactMap { $0.json["sequence"] as? Int }
            #expect(sequences.sorted() == Array(1...sequences.count))
            #expect(received.allSatisfy { ($0.json["occurred_at"] as? String)?.hasSuffix("Z") == true })
            #expect(received.allSatisfy { $0.timestamp == Int(harness.clock.now.timeIntervalSince1970) || $0.timestamp == 1_800_000_000 })
        }
    }

    @Test("Redeeming another user's code under the transfer policy sends purchase.transferred and both accounts' entitlements")
    func transfer() async throws {
        let receiver = try FakeEventReceiver(secret: Self.secret)
        defer { Task { await receiver.stop() } }
        let harness = try CheckoutHarness(redemption: ["on_other_user": "transfer"], extra: ["events": Self.events(receiver)])
        try await Self.delivering(harness.app) {
            let code = try await RedeemFlowTests.paidCode(harness)
            #expect(await harness.redeem(code, appUserID: "owner").status == .ok)
            #expect(await harness.redeem(code, appUserID: "other").status == .ok)
            #expect(await receiver.wait { $0.contains { $0.type == "purchase.transferred" } })
            #expect(await receiver.wait { $0.filter { $0.type == "entitlements.changed" }.count >= 3 })
            let transferred = try #require(receiver.accepted.first { $0.type == "purchase.transferred" })
            let from = try #require(transferred.data["from_account_id"] as? String)
            let to = try #require(transferred.data["account_id"] as? String)
            #expect(from != to)
            #expect(transferred.data["app_user_ids"] as? [String] == ["other"])
            let changed = receiver.accepted.filter { $0.type == "entitlements.changed" }
            let lost = try #require(changed.filter { $0.data["account_id"] as? String == from }.max { Self.sequence($0) < Self.sequence($1) })
            #expect((lost.data["entitlements"] as? [Any])?.isEmpty == true, "the old holder keeps nothing")
            Self.expectClean(receiver.received, secrets: [code])
        }
    }

    @Test("Apple and Google notifications send purchase events; a refund sends purchase.updated (refunded)")
    func storeNotifications() async throws {
        let receiver = try FakeEventReceiver(secret: Self.secret)
        defer { Task { await receiver.stop() } }
        let harness = try await StoresHarness(extra: ["events": Self.events(receiver, types: ["purchase.*", "entitlements.changed"])])
        defer { Task { await harness.stop() } }
        let (accountID, _) = try await harness.signedInAccount()
        let hint = try await harness.obfuscatedID(accountID)
        try await Self.delivering(harness.app) {
            let now = harness.clock.now
            let end = now.addingTimeInterval(30 * 86400)
            let original = "2000000000000901"
            let subscribed = try await harness.appleNotification(
                FakeAppStoreNotification(
                    notificationType: "SUBSCRIBED", subtype: "INITIAL_BUY", signedDate: now,
                    transaction: harness.transaction(original, expires: end, signedAt: now, appAccountToken: hint)))
            #expect(subscribed.status == .ok)
            let refund = try await harness.appleNotification(
                FakeAppStoreNotification(
                    notificationType: "REFUND", signedDate: now.addingTimeInterval(60),
                    transaction: harness.transaction(
                        original, expires: end, signedAt: now.addingTimeInterval(60),
                        revokedAt: now.addingTimeInterval(50), revocationReason: 0)))
            #expect(refund.status == .ok)
            harness.google.setSubscription(token: "tok-events-1", state: .active, productID: "pro_monthly", expiry: end, obfuscatedAccountID: hint)
            let google = await harness.googleNotification(
                .subscription(type: 4, purchaseToken: "tok-events-1", subscriptionID: "pro_monthly"), messageID: "m-ev-1")
            #expect(google.status == .ok)
            #expect(
                await receiver.wait { received in
                    received.filter { $0.type == "purchase.created" }.count == 2 && received.contains { $0.type == "purchase.updated" }
                })
            let received = receiver.accepted
            Self.expectClean(received, secrets: ["tok-events-1"])
            #expect(Set(received.map(\.type)) == ["purchase.created", "purchase.updated", "entitlements.changed"], "the types filter applies")
            let apple = try #require(received.first { $0.type == "purchase.created" && Self.purchase($0)["platform"] as? String == "app_store" })
            #expect(Self.purchase(apple)["external_id"] as? String == original)
            let refunded = try #require(received.first { $0.type == "purchase.updated" })
            #expect(Self.purchase(refunded)["status"] as? String == "refunded")
            let play = try #require(received.first { $0.type == "purchase.created" && Self.purchase($0)["platform"] as? String == "play_store" })
            #expect(Self.purchase(play)["product_id"] as? String == "pro_monthly")
            #expect(received.contains { $0.type == "entitlements.changed" && $0.data["account_id"] as? String == accountID })
        }
    }

    @Test("Confirming an email sends account.email_confirmed without the address")
    func emailConfirmed() async throws {
        let receiver = try FakeEventReceiver(secret: Self.secret)
        defer { Task { await receiver.stop() } }
        let harness = try CheckoutHarness(extra: ["events": Self.events(receiver, types: ["account.*"])])
        try await Self.delivering(harness.app) {
            let owner = try await AccountFlowTests.account(harness, appUserID: "owner")
            let session = try await harness.app.app.database.write {
                try SessionRepository.issue(accountID: owner.id, deviceID: nil, on: $0, now: harness.clock.now)
            }
            let headers: HTTPHeaders = [
                "X-Api-Key": CheckoutHarness.apiKey, "Content-Type": "application/json", "Authorization": "Bearer \(session.accessToken)"
            ]
            #expect(await harness.app.send(.post, "/api/v1/account/email", headers: headers, body: #"{"email":"owner@example.com"}"#).status == .ok)
            await harness.app.app.workers.outbox.runOnce()
            let mail = MailReader(directory: harness.app.directory.path + "/mail")
            let token = try #require(try mail.link(containing: "/email/confirm?token=")?.components(separatedBy: "token=").last)
            #expect(await AccountFlowTests.form(harness, "/email/confirm", ["token": token]).status == .ok)
            #expect(await receiver.wait { $0.contains { $0.type == "account.email_confirmed" } })
            let confirmed = try #require(receiver.accepted.first { $0.type == "account.email_confirmed" })
            #expect(confirmed.data["account_id"] as? String == owner.id)
            Self.expectClean(receiver.received, secrets: ["owner@example.com", token])
        }
    }

    @Test("A receiver that answers 500 for a while still gets every event, each with its original id")
    func retriesKeepTheID() async throws {
        let receiver = try FakeEventReceiver(secret: Self.secret) { index in (index < 6 ? 500 : 200, .zero) }
        defer { Task { await receiver.stop() } }
        let fast = EventRetryPolicy(schedule: [.milliseconds(30), .milliseconds(60)], thereafter: .milliseconds(100), jitter: 0.5)
        let app = try TestApp(
            extra: ["events": Self.events(receiver), "entitlements": ["premium": ["com.example.monthly"]]],
            eventDelivery: EventDeliveryConfiguration(concurrency: 2, idlePoll: .milliseconds(200), retry: fast))
        let queued = try await app.app.database.write { connection in
            try (0..<5).map { index in
                let account = try AccountRepository.findOrCreate(
                    appUserID: "retry-\(index)", secrets: app.app.essentials.secrets, on: connection, now: Date()
                ).0
                return try app.app.useCases.events.record(
                    .accountCreated, accountID: account.id, scope: "account:" + account.id, data: ["account_id": .string(account.id)],
                    on: connection, now: Date()) ?? ""
            }
        }
        try await Self.delivering(app) {
            #expect(await receiver.wait { Set($0.filter { $0.status == 200 }.map(\.webhookID)) == Set(queued) })
            let received = receiver.received
            Self.expectClean(received, secrets: [])
            let failedIDs = Set(received.filter { $0.status == 500 }.map(\.webhookID))
            #expect(!failedIDs.isEmpty && failedIDs.isSubset(of: Set(queued)), "retries reuse the event's id")
            // The receiver's last 200 goes out before the worker records it: wait for the record.
            var items: [[String: Any]] = []
            for _ in 0..<300 {
                let listing = await app.send(.get, "/admin/v1/events?status=delivered", headers: TestApp.adminHeaders)
                items = try #require(listing.jsonObject?["events"] as? [[String: Any]])
                if items.count >= 5 { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(items.count == 5)
            #expect(items.contains { ($0["attempts"] as? Int ?? 0) > 1 })
        }
    }

    @Test("Past its retry window a delivery is failed and listed; redeliver sends it again with the same id")
    func failedAndRedelivered() async throws {
        let accepting = Switch()
        let receiver = try FakeEventReceiver(secret: Self.secret) { _ in (accepting.isOn ? 204 : 503, .zero) }
        defer { Task { await receiver.stop() } }
        let fast = EventRetryPolicy(schedule: [.milliseconds(20)], thereafter: .milliseconds(40), jitter: 0)
        let app = try TestApp(
            extra: ["events": Self.events(receiver)],
            eventDelivery: EventDeliveryConfiguration(idlePoll: .milliseconds(100), retry: fast, retryWindow: 0.3))
        try await app.app.database.write { connection in
            let account = try AccountRepository.findOrCreate(appUserID: "doomed", secrets: app.app.essentials.secrets, on: connection, now: Date()).0
            try app.app.useCases.events.accountCreated(account.id, on: connection, now: Date())
        }
        try await Self.delivering(app) {
            var items: [[String: Any]] = []
            for _ in 0..<100 {
                let listing = await app.send(.get, "/admin/v1/events?status=failed", headers: TestApp.adminHeaders)
                items = listing.jsonObject?["events"] as? [[String: Any]] ?? []
                if !items.isEmpty { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            let failed = try #require(items.first)
            #expect(failed["last_status"] as? Int == 503)
            #expect(failed["type"] as? String == "account.created")
            let id = try #require(failed["id"] as? String)
            #expect(await app.send(.get, "/admin/v1/events?status=bogus", headers: TestApp.adminHeaders).status == .badRequest)
            #expect(await app.send(.post, "/admin/v1/events/\(id)/redeliver").status == .unauthorized)
            #expect(await app.send(.post, "/admin/v1/events/evt_nope/redeliver", headers: TestApp.adminHeaders).status == .notFound)

            accepting.turnOn()
            let redelivered = await app.send(.post, "/admin/v1/events/\(id)/redeliver", headers: TestApp.adminHeaders)
            #expect(redelivered.status == .ok)
            #expect(redelivered.jsonObject?["deliveries"] as? Int == 1)
            #expect(await receiver.wait { $0.contains { $0.status == 204 && $0.webhookID == id } })
            #expect(Set(receiver.received.map(\.webhookID)) == [id])
            var after = await app.send(.get, "/metrics")
            for _ in 0..<50 where !after.text.contains("tollgate_events_deliveries{status=\"delivered\"} 1") {
                try await Task.sleep(for: .milliseconds(20))
                after = await app.send(.get, "/metrics")
            }
            #expect(after.text.contains("tollgate_events_deliveries{status=\"delivered\"} 1"), "\(after.text.suffix(600))")
            #expect(after.text.contains("tollgate_events_delivery_duration_seconds_count{endpoint="))
            let audit = try await app.app.useCases.operatorActions.audit(limit: 10)
            #expect(audit.contains { $0.action == "event.redeliver" && $0.target == id })
        }
    }

    @Test("With no endpoint configured nothing is queued")
    func noEndpoints() async throws {
        let harness = try CheckoutHarness()
        let code = try await RedeemFlowTests.paidCode(harness)
        #expect(await harness.redeem(code).status == .ok)
        #expect(try await harness.count("SELECT count(*) FROM events") == 0)
        #expect(try await harness.count("SELECT count(*) FROM event_deliveries") == 0)
    }
}

/// A flag a fake's handler reads and the test flips.
final class Switch: Sendable {
    private let state = Mutex(false)
    var isOn: Bool { state.withLock { $0 } }
    func turnOn() { state.withLock { $0 = true } }
}
