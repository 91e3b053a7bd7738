import Foundation
import Integrations
import Testing
import TestSupport

/// The fake Google Play says only what the discovery document lets Google say, and keeps the
/// list's documented rules (`type`, window, paging, partial refunds).
@Suite("Fake Google Play speaks the discovery document")
struct FakeGooglePlayWireTests {
    static func schema() throws -> DiscoverySchema {
        try DiscoverySchema(document: try PlayVectors.json("androidpublisher.v3.json"))
    }

    /// `GET` of `pathAndQuery` under the app, with a bearer token the fake issued; the JSON object answered.
    static func get(_ harness: PlayHarness, _ pathAndQuery: String) async throws -> (status: Int, json: [String: Any]) {
        let token = try await harness.tokens.accessToken()
        let url = try #require(URL(string: harness.fake.baseURL + "/androidpublisher/v3/applications/com.example.app/" + pathAndQuery))
        let response = try await URLSessionHTTPClient(service: "play_store").send(
            OutboundRequest(method: "GET", url: url, headers: [("Authorization", "Bearer " + token)]))
        let json = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        return (response.status, try #require(json))
    }

    static func millis(_ date: Date) -> String { String(Int64((date.timeIntervalSince1970 * 1000).rounded())) }

    @Test("The checker finds a key the schema lacks and a wrong JSON type (it can fail)")
    func checkerFails() throws {
        let schema = try Self.schema()
        #expect(schema.problems(["purchaseTimeMillis": "1700000000000", "purchaseState": 0], against: "ProductPurchase").isEmpty)
        #expect(
            schema.problems(["purchaseTimeMillis": 1_700_000_000_000], against: "ProductPurchase") == [
                "$.purchaseTimeMillis: expected a string, got number 1700000000000"
            ])
        #expect(schema.problems(["purchaseState": "0"], against: "ProductPurchase").count == 1)
        #expect(schema.problems(["refundType": 1], against: "VoidedPurchase") == ["$.refundType: not in the schema VoidedPurchase"])
        #expect(schema.problems(["lineItems": [["expiryTime": "tomorrow"]]], against: "SubscriptionPurchaseV2").count == 1)
        #expect(schema.problems(["lineItems": [["autoRenewingPlan": ["autoRenewEnabled": 1]]]], against: "SubscriptionPurchaseV2").count == 1)
    }

    @Test("Google's published examples fit the schemas (the checker reads them right)")
    func vectorsFit() throws {
        let schema = try Self.schema()
        #expect(schema.problems(try PlayVectors.json("example_subscriptionsv2_get.json"), against: "SubscriptionPurchaseV2") == [])
        #expect(schema.problems(try PlayVectors.json("example_products_get.json"), against: "ProductPurchase") == [])
    }

    @Test("Every object the fake returns fits its schema: subscriptionsv2, products, voidedpurchases")
    func everyObjectFits() async throws {
        let harness = try PlayHarness()
        defer { Task { await harness.stop() } }
        let schema = try Self.schema()
        let fake = harness.fake
        let now = harness.clock.now()
        var subscriptionTokens: [String] = []
        for (index, state) in FakeGooglePlay.SubscriptionState.allCases.enumerated() {
            for variant in 0..<2 {
                let token = "sub-\(index)-\(variant)"
                subscriptionTokens.append(token)
                fake.setSubscription(
                    token: token, state: state, productID: "pro_monthly", expiry: now.addingTimeInterval(86_400), acknowledged: variant == 1,
                    linkedPurchaseToken: variant == 1 ? "older" : nil, obfuscatedAccountID: variant == 1 ? "acct" : nil, testPurchase: variant == 1,
                    offerID: variant == 1 ? "intro" : nil, deferredReplacementProductID: variant == 1 ? "pro_yearly" : nil)
            }
        }
        var productTokens: [String] = []
        for (index, state) in FakeGooglePlay.ProductState.allCases.enumerated() {
            for variant in 0..<2 {
                let token = "otp-\(index)-\(variant)"
                productTokens.append(token)
                fake.setProduct(
                    token: token, productID: "coins_100", state: state, acknowledged: variant == 1, consumed: variant == 1,
                    obfuscatedAccountID: variant == 1 ? "acct" : nil, testPurchase: variant == 1)
            }
        }
        for token in subscriptionTokens {
            let (status, json) = try await Self.get(harness, "purchases/subscriptionsv2/tokens/\(token)")
            #expect(status == 200)
            #expect(schema.problems(json, against: "SubscriptionPurchaseV2") == [], "\(token)")
        }
        for token in productTokens {
            let (status, json) = try await Self.get(harness, "purchases/products/coins_100/tokens/\(token)")
            #expect(status == 200)
            #expect(schema.problems(json, against: "ProductPurchase") == [], "\(token)")
        }
        fake.voidPurchase(token: "sub-1-0", voidedTime: now.addingTimeInterval(-60), source: 2, reason: 7)
        fake.voidPurchase(token: "otp-0-0", voidedTime: now.addingTimeInterval(-50), voidedQuantity: 1)
        fake.voidPurchase(token: "otp-0-1", voidedTime: now.addingTimeInterval(-40))
        fake.setVoidedPageSize(1)
        let query = "purchases/voidedpurchases?type=1&includeQuantityBasedPartialRefund=true&startTime=\(Self.millis(now.addingTimeInterval(-3600)))"
        var (status, json) = try await Self.get(harness, query)
        var pages = 1
        while true {
            #expect(status == 200)
            #expect(schema.problems(json, against: "VoidedPurchasesListResponse") == [])
            let entries = json["voidedPurchases"] as? [[String: Any]] ?? []
            #expect(entries.count == 1)
            guard let next = (json["tokenPagination"] as? [String: Any])?["nextPageToken"] as? String else { break }
            (status, json) = try await Self.get(harness, "purchases/voidedpurchases?token=\(next)")
            pages += 1
        }
        #expect(pages == 3)
        // A voided purchase reads as Google then says it: a refunded product canceled, a revoked subscription expired.
        let product = try await Self.get(harness, "purchases/products/coins_100/tokens/otp-0-1").json
        #expect(product["purchaseState"] as? Int == 1)
        let partial = try await Self.get(harness, "purchases/products/coins_100/tokens/otp-0-0").json
        #expect(partial["purchaseState"] as? Int == 0, "a partial refund leaves the purchase")
        let subscription = try await Self.get(harness, "purchases/subscriptionsv2/tokens/sub-1-0").json
        #expect(subscription["subscriptionState"] as? String == "SUBSCRIPTION_STATE_EXPIRED")
    }

    @Test("Without type=1 only one-time products are listed; partial refunds only when asked; maxResults pages; a token keeps its window")
    func listRules() async throws {
        let harness = try PlayHarness()
        defer { Task { await harness.stop() } }
        let fake = harness.fake
        let now = harness.clock.now()
        fake.setSubscription(token: "sub", state: .active, productID: "pro_monthly", expiry: now.addingTimeInterval(86_400))
        for index in 0..<3 { fake.setProduct(token: "otp-\(index)", productID: "coins_100") }
        fake.voidPurchase(token: "sub", voidedTime: now.addingTimeInterval(-500))
        fake.voidPurchase(token: "otp-0", voidedTime: now.addingTimeInterval(-400))
        fake.voidPurchase(token: "otp-1", voidedTime: now.addingTimeInterval(-300), voidedQuantity: 1)
        fake.voidPurchase(token: "otp-2", voidedTime: now.addingTimeInterval(-200))
        func tokens(_ json: [String: Any]) -> [String] {
            (json["voidedPurchases"] as? [[String: Any]] ?? []).compactMap { $0["purchaseToken"] as? String }
        }

        #expect(tokens(try await Self.get(harness, "purchases/voidedpurchases").json) == ["otp-0", "otp-2"])
        #expect(tokens(try await Self.get(harness, "purchases/voidedpurchases?type=1").json) == ["sub", "otp-0", "otp-2"])
        #expect(
            tokens(try await Self.get(harness, "purchases/voidedpurchases?type=1&includeQuantityBasedPartialRefund=true").json) == [
                "sub", "otp-0", "otp-1", "otp-2"
            ])
        let window = "startTime=\(Self.millis(now.addingTimeInterval(-550)))&endTime=\(Self.millis(now.addingTimeInterval(-250)))"
        let first = try await Self.get(harness, "purchases/voidedpurchases?type=1&maxResults=1&\(window)").json
        #expect(tokens(first) == ["sub"])
        let next = try #require((first["tokenPagination"] as? [String: Any])?["nextPageToken"] as? String)
        // Google ignores startTime/endTime once a token is set: the page keeps the first request's window.
        let second = try await Self.get(
            harness, "purchases/voidedpurchases?maxResults=1&token=\(next)&startTime=\(Self.millis(now.addingTimeInterval(-100)))"
        ).json
        #expect(tokens(second) == ["otp-0"], "otp-1 is a partial refund, otp-2 is after the window")
        #expect(second["tokenPagination"] == nil)
        #expect(tokens(try await Self.get(harness, "purchases/voidedpurchases?startTime=\(Self.millis(now.addingTimeInterval(-100)))").json).isEmpty)
        #expect(
            try await Self.get(harness, "purchases/voidedpurchases?startTime=\(Self.millis(now.addingTimeInterval(-100)))").json.isEmpty,
            "an empty page is {}")

        #expect(try await Self.get(harness, "purchases/voidedpurchases?endTime=\(Self.millis(now.addingTimeInterval(60)))").status == 400)
        #expect(try await Self.get(harness, "purchases/voidedpurchases?token=not-a-token").status == 400)
    }
}
