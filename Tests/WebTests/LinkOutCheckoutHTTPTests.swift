import Domain
import Foundation
import HTTPCore
import Storage
import Testing
import TestSupport

@testable import Web

/// Link-out over HTTP (API.md "Link-out compliance"): the eligibility answer the app reads, and
/// `/checkout/start` with a storefront and the platform's token.
@Suite("Link-out: eligibility and checkout with a platform token")
struct LinkOutCheckoutHTTPTests {
    static var rules: [String: Any] {
        [
            "link_out": [
                "rules": [
                    ["platform": "ios", "storefronts": ["USA"], "program": "us_link"],
                    ["platform": "ios", "storefronts": ["DEU", "FRA"], "program": "apple_external_purchase"],
                    ["platform": "android", "storefronts": ["USA"], "program": "google_external_links"]
                ]
            ]
        ]
    }

    static func eligibility(_ harness: CheckoutHarness, _ query: String) async -> HTTPResponse {
        await harness.app.send(.get, "/api/v1/checkout/eligibility?" + query, headers: ["X-Api-Key": CheckoutHarness.apiKey])
    }

    @Test("Without link_out: the US storefront on iOS only, no token; elsewhere link_out false with no programme or URL")
    func defaultEligibility() async throws {
        let harness = try CheckoutHarness()
        let us = await Self.eligibility(harness, "platform=ios&storefront=USA")
        #expect(us.status == .ok, "\(us.text)")
        #expect(us.jsonObject?["link_out"] as? Bool == true && us.jsonObject?["program"] as? String == "us_link")
        #expect(us.jsonObject?["token_required"] as? Bool == false)
        #expect(us.jsonObject?["checkout_url"] as? String == "https://pay.example.com/checkout/start?platform=ios&storefront=USA")
        for query in ["platform=ios&storefront=DEU", "platform=android&storefront=USA"] {
            let refused = await Self.eligibility(harness, query)
            #expect(refused.status == .ok)
            #expect(refused.jsonObject?["link_out"] as? Bool == false, "\(query)")
            #expect(refused.jsonObject?["program"] is NSNull && refused.jsonObject?["checkout_url"] is NSNull)
        }
        for query in ["platform=web&storefront=USA", "platform=ios&storefront=U", "platform=ios&storefront=U1", "storefront=USA"] {
            let bad = await Self.eligibility(harness, query)
            #expect(bad.status == .badRequest && bad.errorCode == "bad_request", "\(query): \(bad.text)")
        }
        #expect(await harness.app.send(.get, "/api/v1/checkout/eligibility?platform=ios&storefront=USA").status == .unauthorized)
    }

    @Test("A storefront whose programme needs a token: 400 page without it or with another app's; with it the checkout starts and keeps it sealed")
    func checkoutWithToken() async throws {
        let harness = try CheckoutHarness(extra: Self.rules)
        let warnings = harness.app.logs.lines.filter { $0.contains("link_out_reporting_unconfigured") }
        #expect(
            warnings.count == 2 && warnings.contains { $0.contains("apple_external_purchase") }
                && warnings.contains { $0.contains("google_external_links") },
            "without store credentials, each reporting programme is named at start: \(warnings)")
        let germany = await Self.eligibility(harness, "platform=ios&storefront=DEU")
        #expect(germany.jsonObject?["program"] as? String == "apple_external_purchase" && germany.jsonObject?["token_required"] as? Bool == true)

        let missing = await harness.app.send(.get, "/checkout/start?plan=monthly&platform=ios&storefront=DEU")
        #expect(missing.status == .badRequest && missing.text.contains("external_purchase_token"), "\(missing.status)")
        let foreign = FakeExternalPurchaseToken.make(bundleID: "com.other.app")
        let refused = await harness.app.send(.get, "/checkout/start?plan=monthly&platform=ios&storefront=DEU&external_purchase_token=\(foreign)")
        #expect(refused.status == .badRequest && refused.text.contains("com.other.app"))
        let oversized = String(repeating: "A", count: 4097)
        let tooLong = await harness.app.send(.get, "/checkout/start?plan=monthly&platform=ios&storefront=DEU&external_purchase_token=\(oversized)")
        #expect(tooLong.status == .badRequest && tooLong.text.contains("4096"))
        let elsewhere = await harness.app.send(.get, "/checkout/start?plan=monthly&platform=ios&storefront=ITA")
        #expect(elsewhere.status == .badRequest)
        #expect(harness.stripe.sessions.isEmpty, "nothing was asked of Stripe")

        let token = FakeExternalPurchaseToken.make(externalPurchaseID: "SANDBOX_7f4d")
        let sessionID = try await harness.startCheckout(
            "plan=monthly&app_user_id=user-1&platform=ios&storefront=DEU&external_purchase_token=\(token)")
        let rows = try await harness.app.app.database.read { connection in
            try connection.query(
                """
                SELECT t.reporting, t.external_id, t.program, t.storefront, t.token_sealed FROM checkouts c
                JOIN link_out_tokens t ON t.id = c.link_out_token_id WHERE c.session_id = ?
                """, [sessionID])
        }
        let row = try #require(rows.first)
        #expect(try row.string("reporting") == "apple" && row.string("external_id") == "SANDBOX_7f4d")
        #expect(try row.string("program") == "apple_external_purchase" && row.string("storefront") == "DEU")
        #expect(!String(decoding: try row.blob("token_sealed"), as: UTF8.self).contains(token.prefix(20)), "the token is sealed at rest")
        #expect(harness.stripe.sessions.first?.metadata.values.contains(token) == false, "the token does not travel to Stripe")

        let plain = try await harness.startCheckout("plan=monthly&app_user_id=user-2")
        #expect(
            try await harness.app.app.database.read { try $0.queryOne("SELECT link_out_token_id FROM checkouts WHERE session_id = ?", [plain]) }?
                .optionalString("link_out_token_id") == nil, "a browser checkout carries no token")
    }
}
