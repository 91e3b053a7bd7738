import Foundation
import HTTPCore
import HTTPRouting
import Testing

@testable import Web

@Suite("Redemption through HTTP")
struct RedeemFlowTests {
    /// A paid checkout and its code.
    static func paidCode(_ harness: CheckoutHarness, query: String = "plan=monthly&email=buyer%40example.com") async throws -> String {
        let id = try await harness.startCheckout(query)
        try harness.pay(id)
        return try #require(CheckoutHarness.code(in: await harness.successPage(id)))
    }

    @Test("Success returns the purchase, entitlements, account and a session that signs in")
    func success() async throws {
        let harness = try CheckoutHarness()
        let code = try await Self.paidCode(harness)
        let response = await harness.redeem(code.lowercased().replacingOccurrences(of: "-", with: " "), appUserID: "user-1", deviceID: "phone-1")
        #expect(response.status == .ok)
        let json = try #require(response.jsonObject)
        #expect(json["status"] as? String == "success")
        #expect(json["code"] as? String == code)
        #expect(json["account_switched"] as? Bool == false)
        let info = try #require(json["redemption_info"] as? [String: Any])
        let purchaser = try #require(info["purchaser_info"] as? [String: Any])
        #expect(purchaser["email"] as? String == "buyer@example.com")
        #expect((purchaser["stripe_customer_id"] as? String)?.hasPrefix("cus_") == true)
        let purchase = try #require(info["purchase"] as? [String: Any])
        #expect(purchase["platform"] as? String == "stripe")
        #expect(purchase["product_id"] as? String == "price_monthly")
        #expect((purchase["subscription_id"] as? String)?.hasPrefix("sub_") == true)
        #expect(purchase["status"] as? String == "active")
        #expect((purchase["expires_at"] as? String)?.hasSuffix("Z") == true)
        let entitlements = try #require(info["entitlements"] as? [[String: Any]])
        #expect(entitlements.count == 1 && entitlements[0]["id"] as? String == "premium" && entitlements[0]["active"] as? Bool == true)
        let account = try #require(json["account"] as? [String: Any])
        #expect((account["obfuscated_account_id"] as? String)?.count == 36)
        let session = try #require(json["session"] as? [String: Any])
        let token = try #require(session["access_token"] as? String)
        #expect(session["expires_in"] as? Int == 3600)
        let entitled = await harness.app.send(
            .get, "/api/v1/entitlements", headers: ["X-Api-Key": CheckoutHarness.apiKey, "Authorization": "Bearer \(token)"])
        #expect(entitled.jsonObject?["account_id"] as? String == account["id"] as? String)
        #expect((entitled.jsonObject?["entitlements"] as? [[String: Any]])?.first?["active"] as? Bool == true)
        let badToken = await harness.app.send(
            .get, "/api/v1/entitlements", headers: ["X-Api-Key": CheckoutHarness.apiKey, "Authorization": "Bearer nope"])
        #expect(badToken.status == .unauthorized)
    }

    @Test("The same user retrying six times gets the same success and one account")
    func retries() async throws {
        let harness = try CheckoutHarness()
        let code = try await Self.paidCode(harness)
        var accounts = Set<String>()
        for _ in 0..<6 {
            let response = await harness.redeem(code, appUserID: "user-1")
            #expect(response.jsonObject?["status"] as? String == "success")
            accounts.insert(((response.jsonObject?["account"] as? [String: Any])?["id"] as? String) ?? "")
        }
        #expect(accounts.count == 1)
        #expect(try await harness.count("SELECT count(*) FROM accounts") == 1)
    }

    @Test("Unknown and malformed codes are invalid_code; repeated failures from one client get 429")
    func invalidAndRateLimited() async throws {
        let harness = try CheckoutHarness()
        for index in 0..<10 {
            let response = await harness.redeem(index % 2 == 0 ? "ZZZZ-ZZZZ-ZZZZ-ZZZZ" : "garbage!", client: "203.0.113.9")
            #expect(response.status == .ok)
            #expect(response.jsonObject?["status"] as? String == "invalid_code")
        }
        let limited = await harness.redeem("ZZZZ-ZZZZ-ZZZZ-ZZZZ", client: "203.0.113.9")
        #expect(limited.status == .tooManyRequests)
        #expect(limited.errorCode == "rate_limited")
        #expect(Int(limited.headers["Retry-After"] ?? "") ?? 0 > 0)
        // Another client is not affected, nor is another app user behind the same address.
        #expect(await harness.redeem("ZZZZ-ZZZZ-ZZZZ-ZZZZ", client: "203.0.113.10").status == .ok)
        #expect(await harness.redeem("ZZZZ-ZZZZ-ZZZZ-ZZZZ", appUserID: "user-2", client: "203.0.113.9").status == .ok)
        harness.clock.advance(600.0 + 1)
        #expect(await harness.redeem("ZZZZ-ZZZZ-ZZZZ-ZZZZ", client: "203.0.113.9").status == .ok)
    }

    @Test("Behind one shared address, one user's typos never lock out the others; rotating app users still meets the address's looser limit")
    func sharedAddressLimits() async throws {
        let harness = try CheckoutHarness()
        let code = try await Self.paidCode(harness)
        let shared = "198.51.100.200"
        for _ in 0..<10 {
            _ = await harness.redeem("ZZZZ-ZZZZ-ZZZZ-ZZZZ", appUserID: "typo-user", client: shared)
        }
        #expect(await harness.redeem("ZZZZ-ZZZZ-ZZZZ-ZZZZ", appUserID: "typo-user", client: shared).status == .tooManyRequests)
        // The buyer behind the same carrier-grade NAT redeems their code.
        let buyer = await harness.redeem(code, appUserID: "buyer", client: shared)
        #expect(buyer.jsonObject?["status"] as? String == "success")
        // A guesser rotating app user ids is held by the per-address budget.
        var spent = 10
        var index = 0
        while spent < 300 {
            let response = await harness.redeem("ZZZZ-ZZZZ-ZZZZ-ZZZZ", appUserID: "guesser-\(index)", client: shared)
            #expect(response.status == .ok)
            spent += 1
            index += 1
        }
        #expect(await harness.redeem("ZZZZ-ZZZZ-ZZZZ-ZZZZ", appUserID: "guesser-fresh", client: shared).status == .tooManyRequests)
        #expect(await harness.redeem("ZZZZ-ZZZZ-ZZZZ-ZZZZ", appUserID: "guesser-fresh", client: "198.51.100.201").status == .ok)
    }

    @Test("An expired code is re-sent by email once per interval")
    func expiredResent() async throws {
        let harness = try CheckoutHarness()
        let code = try await Self.paidCode(harness)
        harness.clock.advance(3601)
        let first = await harness.redeem(code)
        #expect(first.jsonObject?["status"] as? String == "expired_code")
        let expired = try #require(first.jsonObject?["expired"] as? [String: Any])
        #expect(expired["resent"] as? Bool == true)
        #expect(expired["obfuscated_email"] as? String == "b•••@e•••.com")
        #expect(try await harness.count("SELECT count(*) FROM mail_outbox WHERE template = 'code_resent'") == 1)
        let second = await harness.redeem(code)
        #expect((second.jsonObject?["expired"] as? [String: Any])?["resent"] as? Bool == false)
        #expect(try await harness.count("SELECT count(*) FROM mail_outbox WHERE template = 'code_resent'") == 1)
    }

    @Test("A second device under each on_other_user policy", arguments: ["switch", "transfer", "reject"])
    func otherUser(policy: String) async throws {
        let harness = try CheckoutHarness(redemption: ["on_other_user": policy])
        let code = try await Self.paidCode(harness)
        let owner = await harness.redeem(code, appUserID: "owner", deviceID: "d1")
        let ownerAccount = (owner.jsonObject?["account"] as? [String: Any])?["id"] as? String
        let other = await harness.redeem(code, appUserID: "other", deviceID: "d2")
        let json = try #require(other.jsonObject)
        switch policy {
        case "switch":
            #expect(json["status"] as? String == "success")
            #expect(json["account_switched"] as? Bool == true)
            #expect((json["account"] as? [String: Any])?["id"] as? String == ownerAccount)
        case "transfer":
            #expect(json["status"] as? String == "success")
            #expect(json["account_switched"] as? Bool == false)
            #expect((json["account"] as? [String: Any])?["id"] as? String != ownerAccount)
            let old = await harness.app.send(.get, "/api/v1/entitlements?app_user_id=owner", headers: ["X-Api-Key": CheckoutHarness.apiKey])
            #expect((old.jsonObject?["entitlements"] as? [[String: Any]])?.isEmpty == true, "the old account lost the entitlement")
        default:
            #expect(json["status"] as? String == "purchase_belongs_to_other_user")
            #expect(json["session"] == nil)
        }
    }

    @Test("Past max_devices the least recently seen device is signed out")
    func deviceEviction() async throws {
        let harness = try CheckoutHarness(redemption: ["max_devices": 2])
        let code = try await Self.paidCode(harness)
        var tokens: [String] = []
        for device in ["d1", "d2", "d3"] {
            harness.clock.advance(60)
            let response = await harness.redeem(code, appUserID: "user-\(device)", deviceID: device)
            tokens.append(((response.jsonObject?["session"] as? [String: Any])?["access_token"] as? String) ?? "")
        }
        let headers = { (token: String) -> HTTPHeaders in ["X-Api-Key": CheckoutHarness.apiKey, "Authorization": "Bearer \(token)"] }
        #expect(await harness.app.send(.get, "/api/v1/entitlements", headers: headers(tokens[0])).status == .unauthorized)
        #expect(await harness.app.send(.get, "/api/v1/entitlements", headers: headers(tokens[2])).status == .ok)
    }

    @Test("A lapsed subscription answers expired_subscription")
    func expiredSubscription() async throws {
        let harness = try CheckoutHarness()
        let id = try await harness.startCheckout()
        try harness.pay(id)
        let code = try #require(CheckoutHarness.code(in: await harness.successPage(id)))
        let subscriptionID = try #require(harness.stripe.session(id: id)?.subscriptionID)
        _ = try harness.stripe.updateSubscription(id: subscriptionID, status: "canceled")
        harness.clock.advance(10)
        let hook = await harness.webhook("customer.subscription.deleted", object: try #require(harness.stripe.subscriptionObject(id: subscriptionID)))
        #expect(hook.status == .ok)
        let response = await harness.redeem(code)
        #expect(response.jsonObject?["status"] as? String == "expired_subscription")
        #expect(response.jsonObject?["redemption_info"] != nil)
    }

    @Test("Requests without the app key, with bad JSON or missing fields get precise errors")
    func badRequests() async throws {
        let harness = try CheckoutHarness()
        let noKey = await harness.app.send(
            .post, "/api/v1/redeem", headers: ["Content-Type": "application/json"], body: #"{"code":"x","app_user_id":"u"}"#)
        #expect(noKey.status == .unauthorized)
        let headers: HTTPHeaders = ["X-Api-Key": CheckoutHarness.apiKey, "Content-Type": "application/json"]
        let missing = await harness.app.send(.post, "/api/v1/redeem", headers: headers, body: #"{"code":"x"}"#)
        #expect(missing.status == .badRequest)
        #expect((missing.jsonObject?["error"] as? [String: Any])?["message"] as? String == "Field 'app_user_id' is missing.")
        let wrongType = await harness.app.send(.post, "/api/v1/redeem", headers: headers, body: #"{"code":5,"app_user_id":"u"}"#)
        #expect(wrongType.status == .badRequest)
        let broken = await harness.app.send(.post, "/api/v1/redeem", headers: headers, body: "{")
        #expect(broken.status == .badRequest)
        let form = await harness.app.send(
            .post, "/api/v1/redeem", headers: ["X-Api-Key": CheckoutHarness.apiKey, "Content-Type": "text/plain"], body: "code=x")
        #expect(form.status == .unsupportedMediaType)
        #expect(try await harness.count("SELECT count(*) FROM accounts") == 0, "nothing half-written")
    }

    @Test("Idempotency-Key: a repeat gets the first answer; another body with the same key is 409; keys are the caller's own")
    func idempotency() async throws {
        let harness = try CheckoutHarness()
        let code = try await Self.paidCode(harness)
        let first = await harness.redeem(code, headers: ["Idempotency-Key": "key-1"])
        let again = await harness.redeem(code, headers: ["Idempotency-Key": "key-1"])
        #expect(again.body == first.body)
        #expect(again.headers["Idempotent-Replayed"] == "true")
        let otherBody = await harness.redeem(code, deviceID: "another-device", headers: ["Idempotency-Key": "key-1"])
        #expect(otherBody.status == .conflict)
        // Issue 40: keys are scoped to the caller (API key plus bearer, or app user plus secret): another
        // caller's request with the same key runs as its own and never gets the first caller's answer.
        let other = await harness.redeem(code, appUserID: "someone-else", headers: ["Idempotency-Key": "key-1"])
        #expect(other.headers["Idempotent-Replayed"] == nil && other.body != first.body)
        let stranger = await harness.redeem(code, headers: ["Idempotency-Key": "key-1", "Authorization": "Bearer someone-elses-token"])
        #expect(stranger.status == .unauthorized && stranger.headers["Idempotent-Replayed"] == nil)
    }

    @Test("Opening the emailed link never consumes the code")
    func landingPageDoesNotConsume() async throws {
        let harness = try CheckoutHarness()
        let code = try await Self.paidCode(harness)
        for agent in ["Mozilla/5.0 (iPhone)", "Mozilla/5.0 (Linux; Android 14)", "Mozilla/5.0 (X11; Linux x86_64)", "ScannerBot/1.0"] {
            let page = await harness.app.send(.get, "/redeem/\(code)", headers: ["User-Agent": agent])
            #expect(page.status == .ok)
            #expect(page.text.contains(code))
        }
        #expect(try await harness.count("SELECT count(*) FROM redemption_codes WHERE status = 'live'") == 1)
        #expect(try await harness.count("SELECT count(*) FROM accounts") == 0)
        let unknown = await harness.app.send(.get, "/redeem/ZZZZ-ZZZZ-ZZZZ-ZZZZ")
        #expect(unknown.status == .notFound)
        #expect(unknown.text.contains("<form method=\"post\" action=\"/redeem/resend\">"))
    }

    @Test("Resend answers 202 whatever the email, and mails a fresh code only for a buyer")
    func resend() async throws {
        let harness = try CheckoutHarness()
        _ = try await Self.paidCode(harness)
        let headers: HTTPHeaders = ["X-Api-Key": CheckoutHarness.apiKey, "Content-Type": "application/json"]
        let stranger = await harness.app.send(.post, "/api/v1/codes/resend", headers: headers, body: #"{"email":"nobody@example.com"}"#)
        let buyer = await harness.app.send(.post, "/api/v1/codes/resend", headers: headers, body: #"{"email":"Buyer@Example.com"}"#)
        #expect(stranger.status == .accepted && buyer.status == .accepted)
        #expect(stranger.body == buyer.body)
        #expect(try await harness.count("SELECT count(*) FROM mail_outbox WHERE template = 'code_resent'") == 1)
        let throttled = await harness.app.send(.post, "/api/v1/codes/resend", headers: headers, body: #"{"email":"buyer@example.com"}"#)
        #expect(throttled.status == .accepted)
        #expect(try await harness.count("SELECT count(*) FROM mail_outbox WHERE template = 'code_resent'") == 1)
    }

    @Test("Well-known app links come from config")
    func wellKnown() async throws {
        let harness = try CheckoutHarness()
        let apple = await harness.app.send(.get, "/.well-known/apple-app-site-association")
        #expect(apple.status == .ok)
        #expect(apple.text.contains("ABCDE12345.com.example.app"))
        #expect(apple.text.contains("/redeem/*"))
        let android = await harness.app.send(.get, "/.well-known/assetlinks.json")
        let statements = try #require((try? JSONSerialization.jsonObject(with: Data(android.body))) as? [[String: Any]])
        #expect(((statements.first?["target"] as? [String: Any])?["package_name"] as? String) == "com.example.app")
        let bare = try TestApp()
        #expect(await bare.send(.get, "/.well-known/assetlinks.json").status == .notFound)
    }
}
