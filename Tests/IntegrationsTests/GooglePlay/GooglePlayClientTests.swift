import Domain
import Foundation
import Integrations
import Testing
import TestSupport

@Suite("Google Play client")
struct GooglePlayClientTests {
    typealias State = FakeGooglePlay.SubscriptionState

    /// (fake state, expected status, entitled before expiry)
    static let stateTable: [(State, PurchaseStatus, Bool)] = [
        (.active, .active, true), (.inGracePeriod, .inGracePeriod, true), (.canceled, .canceled, true),
        (.onHold, .billingRetry, false), (.paused, .paused, false), (.expired, .expired, false),
        (.pending, .pending, false), (.pendingPurchaseCanceled, .expired, false)
    ]

    @Test("Every subscriptionsv2 state maps to its snapshot status and entitlement", arguments: Self.stateTable)
    func subscriptionStates(state: State, status: PurchaseStatus, entitled: Bool) async throws {
        let harness = try PlayHarness()
        defer { Task { await harness.stop() } }
        let now = harness.clock.now()
        let expiry = Date(timeIntervalSince1970: (now.timeIntervalSince1970 + 10 * 86_400).rounded())
        let token = "tok.\(state.rawValue.lowercased())-A_b"
        harness.fake.setSubscription(token: token, state: state, productID: "pro_monthly", expiry: expiry, obfuscatedAccountID: "acct-1")
        let subscription = try await harness.client.subscription(purchaseToken: token)
        let snapshot = subscription.snapshot(purchaseToken: token, observedAt: now)
        #expect(snapshot.status == status)
        #expect(snapshot.isEntitled(at: now) == entitled)
        #expect(snapshot.isEntitled(at: expiry.addingTimeInterval(1)) == false)
        #expect(snapshot.platform == .playStore)
        #expect(snapshot.externalID == token)
        #expect(snapshot.productID == "pro_monthly")
        #expect(snapshot.expiresAt == expiry)
        #expect(snapshot.ownerHint == "acct-1")
        #expect(snapshot.environment == "production")
        #expect(snapshot.observedAt == now)
        #expect(snapshot.supersedesExternalID == nil)
    }

    @Test("linkedPurchaseToken becomes supersedesExternalID; test purchases are environment test")
    func linkedToken() async throws {
        let harness = try PlayHarness()
        defer { Task { await harness.stop() } }
        let expiry = Date(timeIntervalSince1970: 1_900_000_000)
        harness.fake.setSubscription(
            token: "new-token", state: .active, productID: "pro_yearly", expiry: expiry, acknowledged: true,
            linkedPurchaseToken: "old-token", testPurchase: true, orderID: "GPA.9999-0000-1111-22222")
        let subscription = try await harness.client.subscription(purchaseToken: "new-token")
        #expect(subscription.linkedPurchaseToken == "old-token")
        #expect(subscription.isTestPurchase)
        let snapshot = subscription.snapshot(purchaseToken: "new-token", observedAt: Date())
        #expect(snapshot.supersedesExternalID == "old-token")
        #expect(snapshot.environment == "test")
        #expect(snapshot.ownerHint == nil)
        #expect(snapshot.transactionID == "GPA.9999-0000-1111-22222")
    }

    @Test(
        "One-time products map purchased, canceled and pending",
        arguments: [
            (FakeGooglePlay.ProductState.purchased, PurchaseStatus.active, true),
            (.canceled, .revoked, false), (.pending, .pending, false)
        ])
    func products(state: FakeGooglePlay.ProductState, status: PurchaseStatus, entitled: Bool) async throws {
        let harness = try PlayHarness()
        defer { Task { await harness.stop() } }
        harness.fake.setProduct(token: "otp-token", productID: "coins_100", state: state, obfuscatedAccountID: "acct-2", orderID: "GPA.3333")
        let purchase = try await harness.client.product(productID: "coins_100", purchaseToken: "otp-token")
        let now = Date()
        let snapshot = purchase.snapshot(productID: "coins_100", purchaseToken: "otp-token", observedAt: now)
        #expect(snapshot.status == status)
        #expect(snapshot.expiresAt == nil)
        #expect(snapshot.isEntitled(at: now.addingTimeInterval(100 * 365 * 86_400)) == entitled)
        #expect(snapshot.ownerHint == "acct-2")
        #expect(snapshot.transactionID == "GPA.3333")
        #expect(purchase.purchaseTime == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(purchase.needsAcknowledgement == (state == .purchased))
    }

    @Test("An unacknowledged subscription is acknowledged once; an acknowledged one never")
    func acknowledgeSubscription() async throws {
        let harness = try PlayHarness()
        defer { Task { await harness.stop() } }
        let expiry = Date().addingTimeInterval(86_400)
        harness.fake.setSubscription(token: "fresh", state: .active, productID: "pro_monthly", expiry: expiry)
        harness.fake.setSubscription(token: "done", state: .active, productID: "pro_monthly", expiry: expiry, acknowledged: true)
        for token in ["fresh", "done", "fresh"] {
            let subscription = try await harness.client.subscription(purchaseToken: token)
            if subscription.needsAcknowledgement {
                try await harness.client.acknowledgeSubscription(
                    subscriptionID: try #require(subscription.latestLineItem?.productID), purchaseToken: token)
            }
        }
        #expect(harness.fake.acknowledgements == [.init(kind: "subscriptions", productID: "pro_monthly", purchaseToken: "fresh")])
        #expect(harness.fake.isAcknowledged(token: "fresh") == true)
        let error = await expectPlayError(.requestRejected) {
            try await harness.client.acknowledgeSubscription(subscriptionID: "pro_monthly", purchaseToken: "fresh")
        }
        #expect(error?.message.contains("invalidPurchaseState") == true)
    }

    @Test("An unacknowledged product is acknowledged once; pending ones are not acknowledged")
    func acknowledgeProduct() async throws {
        let harness = try PlayHarness()
        defer { Task { await harness.stop() } }
        harness.fake.setProduct(token: "p1", productID: "coins_100")
        harness.fake.setProduct(token: "p2", productID: "coins_100", state: .pending)
        harness.fake.setProduct(token: "p3", productID: "coins_100", acknowledged: true)
        for token in ["p1", "p2", "p3", "p1"] {
            let purchase = try await harness.client.product(productID: "coins_100", purchaseToken: token)
            if purchase.needsAcknowledgement {
                try await harness.client.acknowledgeProduct(productID: "coins_100", purchaseToken: token)
            }
        }
        #expect(harness.fake.acknowledgements == [.init(kind: "products", productID: "coins_100", purchaseToken: "p1")])
    }

    @Test("Path segments are percent-encoded and reach Google intact")
    func pathEncoding() async throws {
        let harness = try PlayHarness()
        defer { Task { await harness.stop() } }
        let token = "ab.CD-ef_gh~ij/../kl?m=n#o%p q"
        harness.fake.setProduct(token: token, productID: "coins/100")
        let purchase = try await harness.client.product(productID: "coins/100", purchaseToken: token)
        #expect(purchase.productID == "coins/100")
        let target = try #require(harness.fake.requests.last?.target)
        #expect(
            target == "/androidpublisher/v3/applications/com.example.app/purchases/products/coins%2F100/tokens/"
                + "ab.CD-ef_gh~ij%2F..%2Fkl%3Fm%3Dn%23o%25p%20q")
    }

    @Test("A revoked access token is refreshed once, then the call succeeds")
    func refreshOnce() async throws {
        let harness = try PlayHarness()
        defer { Task { await harness.stop() } }
        harness.fake.setSubscription(token: "t1", state: .active, productID: "pro_monthly", expiry: Date().addingTimeInterval(3600))
        _ = try await harness.client.subscription(purchaseToken: "t1")
        harness.fake.revokeIssuedTokens()
        let subscription = try await harness.client.subscription(purchaseToken: "t1")
        #expect(subscription.state == .active)
        #expect(harness.fake.tokenRequestCount == 2)
        #expect(harness.fake.apiRequestCount == 3)
    }

    @Test("A 401 to a fresh token too is a typed unauthorized error after one retry")
    func unauthorizedTwice() async throws {
        let harness = try PlayHarness()
        defer { Task { await harness.stop() } }
        harness.fake.setSubscription(token: "t1", state: .active, productID: "pro_monthly", expiry: Date().addingTimeInterval(3600))
        harness.fake.setRejectAllBearerTokens(true)
        let error = await expectPlayError(.unauthorized) { _ = try await harness.client.subscription(purchaseToken: "t1") }
        #expect(error?.isConfigurationError == true)
        #expect(harness.fake.tokenRequestCount == 2)
        #expect(harness.fake.apiRequestCount == 2)
    }

    @Test("Unknown tokens, products and packages are purchase-not-found")
    func notFound() async throws {
        let harness = try PlayHarness()
        defer { Task { await harness.stop() } }
        harness.fake.setProduct(token: "p1", productID: "coins_100")
        await expectPlayError(.purchaseNotFound) { _ = try await harness.client.subscription(purchaseToken: "nope") }
        await expectPlayError(.purchaseNotFound) { _ = try await harness.client.product(productID: "coins_500", purchaseToken: "p1") }
        await expectPlayError(.purchaseNotFound) { _ = try await harness.client.subscription(purchaseToken: "") }
        let otherApp = GooglePlayClient(
            packageName: "com.example.other", apiBase: try #require(URL(string: harness.fake.baseURL)), tokens: harness.tokens,
            http: URLSessionHTTPClient(service: "play_store"))
        let error = await expectPlayError(.purchaseNotFound) { _ = try await otherApp.product(productID: "coins_100", purchaseToken: "p1") }
        #expect(error?.isConfigurationError == false)
    }

    @Test("An outage is a retryable upstream error; so is a closed port")
    func outage() async throws {
        let harness = try PlayHarness()
        harness.fake.setSubscription(token: "t1", state: .active, productID: "pro_monthly", expiry: Date().addingTimeInterval(3600))
        _ = try await harness.tokens.accessToken()
        harness.fake.setOutage(true)
        let outage = await expectUpstream { _ = try await harness.client.subscription(purchaseToken: "t1") }
        #expect(outage?.kind == .badStatus(503))
        #expect(outage?.retryable == true)
        harness.fake.setOutage(false)
        #expect(try await harness.client.subscription(purchaseToken: "t1").state == .active)
        await harness.stop()
        // A port held by a socket that never listens: a stopped fake's port may be reused at once.
        let refusing = try RefusingPort()
        let client = try harness.clientRefused(at: refusing)
        let closed = await expectUpstream { _ = try await client.subscription(purchaseToken: "t1") }
        #expect(closed?.retryable == true)
    }

    @Test("Statuses map to typed errors", arguments: [403, 429, 500, 400, 410, 409, 200])
    func statusMapping(status: Int) async throws {
        let http = ScriptedHTTPClient { request in
            if request.url.path == "/token" {
                return OutboundResponse(status: 200, body: Array(#"{"access_token":"ya29.x","expires_in":3599}"#.utf8))
            }
            if status == 200 { return OutboundResponse(status: 200, body: Array("<html>maintenance</html>".utf8)) }
            return OutboundResponse(status: status, body: Array(#"{"error":{"code":\#(status),"message":"Nope","errors":[{"reason":"why"}]}}"#.utf8))
        }
        let account = try GoogleServiceAccount(json: PlayVectors.bytes("google-auth-testdata/service_account.json"))
        let tokens = GoogleAccessTokenProvider(
            serviceAccount: account, http: http, tokenURL: URL(string: "https://oauth.test/token"))
        let client = GooglePlayClient(
            packageName: "com.example.app", apiBase: try #require(URL(string: "https://play.test/")), tokens: tokens, http: http)
        switch status {
        case 403:
            let error = await expectPlayError(.permissionDenied) { _ = try await client.subscription(purchaseToken: "t") }
            #expect(error?.message.contains("Nope") == true)
        case 429, 500:
            let error = await expectUpstream { _ = try await client.subscription(purchaseToken: "t") }
            #expect(error?.retryable == true)
        case 400, 410:
            await expectPlayError(.purchaseNotFound) { _ = try await client.subscription(purchaseToken: "t") }
        case 409:
            await expectPlayError(.requestRejected) { try await client.acknowledgeProduct(productID: "p", purchaseToken: "t") }
        default:
            // A 200 whose body is not a purchase object: an unreadable answer, not retryable.
            let error = await expectUpstream { _ = try await client.product(productID: "p", purchaseToken: "t") }
            #expect(error?.kind == .invalidResponse)
        }
        #expect(
            http.requests.last?.url.absoluteString.hasPrefix("https://play.test/androidpublisher/v3/applications/com.example.app/purchases/") == true)
        #expect(http.requests.last?.headers.first { $0.name == "Authorization" }?.value == "Bearer ya29.x")
    }
}
