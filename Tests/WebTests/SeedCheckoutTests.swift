import Foundation
import HTTPCore
import HTTPRouting
import Integrations
import Testing
import TestSupport

/// The paywall systems' checkout inputs and outputs as their own docs use them: Superwall's
/// custom placement parameters, the app's poll after a killed app, Cleeng's coupon codes, and
/// only this deployment's Stripe purchases.
@Suite("Checkout as the seed systems use it")
struct SeedCheckoutTests {
    private static func query(of location: String) -> [String: String] {
        let query = location.split(separator: "?", maxSplits: 1).dropFirst().first.map(String.init) ?? ""
        return Dictionary(FormURLEncoding.decode(query).map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    private static func base64JSON(_ object: [String: Any]) throws -> String {
        try JSONSerialization.data(withJSONObject: object).base64EncodedString()
    }

    @Test("Redirect mode passes on every custom placement parameter and the ply_context fields as ply_<field>")
    func customParametersReachTheRedirect() async throws {
        let harness = try CheckoutHarness(redemption: ["mode": "redirect"])
        let context = try Self.base64JSON(["presentation_id": "pres-1", "placement_id": "onboarding", "ab_test_variant_id": 2])
        let id = try await harness.startCheckout(
            "plan=monthly&app_user_id=u-sw&placement=paywall_a&campaign_id=c7&experiment.arm-2=b&utm_source=ads&empty="
                + "&ply_context=" + FormURLEncoding.encode(context))
        let metadata = try #require(harness.stripe.session(id: id)?.metadata)
        #expect(metadata["placement"] == "paywall_a")
        #expect(metadata["ply_presentation_id"] == "pres-1")
        try harness.pay(id, email: "sw@example.com")
        let response = await harness.successPage(id)
        #expect(response.status == .found)
        let values = Self.query(of: try #require(response.headers["Location"]))
        #expect(values["placement"] == "paywall_a")
        #expect(values["campaign_id"] == "c7")
        #expect(values["experiment.arm-2"] == "b")
        #expect(values["utm_source"] == "ads")
        #expect(values["empty"] == "")
        #expect(values["ply_presentation_id"] == "pres-1")
        #expect(values["ply_placement_id"] == "onboarding")
        #expect(values["ply_ab_test_variant_id"] == "2")
        #expect(values["app_user_id"] == "u-sw")
        #expect(values["stripe_subscription_id"]?.hasPrefix("sub_") == true)
    }

    @Test("A custom parameter never stands in for one redirect mode names itself")
    func customParameterCannotSpoofTheRedirect() async throws {
        let harness = try CheckoutHarness(redemption: ["mode": "redirect"])
        let id = try await harness.startCheckout("plan=monthly&app_user_id=u-x&stripe_subscription_id=sub_fake&code=AAAA")
        try harness.pay(id, email: "x@example.com")
        let location = try #require(await harness.successPage(id).headers["Location"])
        let pairs = FormURLEncoding.decode(String(location.split(separator: "?", maxSplits: 1)[1]))
        #expect(pairs.filter { $0.name == "stripe_subscription_id" }.map(\.value) != ["sub_fake"])
        #expect(pairs.filter { $0.name == "stripe_subscription_id" }.count == 1)
        #expect(pairs.filter { $0.name == "code" }.count == 1)
        #expect(pairs.first { $0.name == "code" }?.value.count == 19)
    }

    @Test("Custom parameters beyond API.md's bounds are a 400 page naming the parameter, and no session is opened")
    func customParameterBounds() async throws {
        let harness = try CheckoutHarness()
        let many = (1...21).map { "p\($0)=v" }.joined(separator: "&")
        let tooMany = await harness.app.send(.get, "/checkout/start?plan=monthly&" + many)
        #expect(tooMany.status == .badRequest)
        #expect(tooMany.text.contains("p21") || tooMany.text.contains("p9"), "names the parameter over the limit: \(tooMany.text.prefix(400))")
        let longValue = await harness.app.send(.get, "/checkout/start?plan=monthly&placement=" + String(repeating: "a", count: 501))
        #expect(longValue.status == .badRequest)
        #expect(longValue.text.contains("placement"))
        let badName = await harness.app.send(.get, "/checkout/start?plan=monthly&" + FormURLEncoding.encode("bad name!") + "=1")
        #expect(badName.status == .badRequest)
        #expect(badName.text.contains("bad name!"))
        let longName = await harness.app.send(.get, "/checkout/start?plan=monthly&" + String(repeating: "n", count: 41) + "=1")
        #expect(longName.status == .badRequest)
        #expect(harness.stripe.sessions.isEmpty)
        // Twenty, each at the limits, are fine.
        let twenty = (1...20).map { String(repeating: "k", count: 38) + String(format: "%02d", $0) + "=" + String(repeating: "v", count: 500) }
        #expect(await harness.app.send(.get, "/checkout/start?plan=monthly&" + twenty.joined(separator: "&")).status == .seeOther)
    }

    @Test("The starter's poll of a paid checkout is redeem's success: code, account with the paid email, account_switched, a working session")
    func pollGivesTheWholeSuccess() async throws {
        let harness = try CheckoutHarness()
        let contextID = "6a1f0c1e-2b3d-4c5e-8f70-9a8b7c6d5e4f"
        // Issue 40: the install's secret goes with the checkout and the poll; naming the app user alone proves nothing.
        let secret = "killed-app-install-secret-0123456789"
        let id = try await harness.startCheckout("plan=monthly&app_user_id=killed-app&app_user_secret=\(secret)&checkout_context_id=\(contextID)")
        #expect(harness.stripe.sessionObject(id: id).map { "\($0)".contains(secret) } == false, "the secret never reaches Stripe")
        try harness.pay(id, email: "Killed@Example.com")
        #expect(await harness.webhook("checkout.session.completed", object: try #require(harness.stripe.sessionObject(id: id))).status == .ok)
        let headers: HTTPHeaders = ["X-Api-Key": CheckoutHarness.apiKey]
        let named = await harness.app.send(.get, "/api/v1/checkout/\(contextID)?app_user_id=killed-app", headers: headers)
        let namedResult = try #require(named.jsonObject?["result"] as? [String: Any])
        #expect(namedResult["session_required"] as? Bool == true && namedResult["session"] == nil && namedResult["code"] == nil)
        #expect(namedResult["account"] == nil && namedResult["redemption_info"] == nil)
        let poll = await harness.app.send(.get, "/api/v1/checkout/\(contextID)?app_user_id=killed-app&app_user_secret=\(secret)", headers: headers)
        let result = try #require(poll.jsonObject?["result"] as? [String: Any])
        #expect(result["status"] as? String == "success")
        let code = try #require(result["code"] as? String)
        #expect(code.count == 19)
        #expect(result["account_switched"] as? Bool == false)
        let account = try #require(result["account"] as? [String: Any])
        #expect(account["email"] as? String == "killed@example.com")
        #expect(account["email_verified"] as? Bool == false)
        let info = try #require(result["redemption_info"] as? [String: Any])
        #expect((info["purchaser_info"] as? [String: Any])?["app_user_id"] as? String == "killed-app")
        let session = try #require(result["session"] as? [String: Any])
        let token = try #require(session["access_token"] as? String)
        let entitlements = await harness.app.send(
            .get, "/api/v1/entitlements", headers: ["X-Api-Key": CheckoutHarness.apiKey, "Authorization": "Bearer \(token)"])
        #expect(entitlements.status == .ok)
        #expect(entitlements.jsonObject?["account_id"] as? String == account["id"] as? String)
        // The code shown is the purchase's own: redeeming it is a repeat for the same account.
        let redeemed = await harness.redeem(code, appUserID: "killed-app", headers: ["X-App-User-Secret": secret])
        #expect(redeemed.jsonObject?["status"] as? String == "success")
        #expect((redeemed.jsonObject?["account"] as? [String: Any])?["id"] as? String == account["id"] as? String)
        // Once redeemed, the poll no longer shows a code; a stranger still learns the status only.
        let after = await harness.app.send(
            .get, "/api/v1/checkout/\(contextID)?app_user_id=killed-app", headers: ["X-Api-Key": CheckoutHarness.apiKey, "X-App-User-Secret": secret])
        #expect((after.jsonObject?["result"] as? [String: Any])?["code"] == nil)
        #expect((after.jsonObject?["result"] as? [String: Any])?["session"] != nil)
        let stranger = await harness.app.send(.get, "/api/v1/checkout/\(contextID)?app_user_id=someone", headers: headers)
        #expect(stranger.jsonObject?["status"] as? String == "complete")
        #expect(stranger.jsonObject?["result"] == nil)
    }

    @Test("A paid session this deployment did not start, at a price it does not offer, gets no purchase, code or mail")
    func foreignSessionsAreIgnored() async throws {
        let harness = try CheckoutHarness()
        let client = StripeClient(secretKey: harness.stripe.secretKey, apiBase: harness.stripe.baseURL, http: URLSessionHTTPClient(service: "stripe"))
        let foreign = try await client.createCheckoutSession(
            CheckoutSessionRequest(
                mode: .subscription, priceID: "price_elsewhere", successURL: "https://other.example/ok", cancelURL: "https://other.example/no"),
            idempotencyKey: "other-app-1")
        let paid = try harness.stripe.completeSession(id: foreign.id, email: "other@example.com", paid: true)
        let event = await harness.webhook("checkout.session.completed", object: try #require(harness.stripe.sessionObject(id: foreign.id)))
        #expect(event.status == .ok)
        let subscription = try #require(paid.subscription)
        let created = await harness.webhook(
            "customer.subscription.created", object: try #require(harness.stripe.subscriptionObject(id: subscription.id)))
        #expect(created.status == .ok)
        let page = await harness.successPage(foreign.id)
        #expect(page.status == .notFound)
        #expect(CheckoutHarness.code(in: page) == nil)
        #expect(try await harness.count("SELECT COUNT(*) FROM purchases") == 0)
        #expect(try await harness.count("SELECT COUNT(*) FROM redemption_codes") == 0)
        #expect(try await harness.count("SELECT COUNT(*) FROM mail_outbox") == 0)
        // The same events again are known duplicates: still nothing stored.
        #expect(await harness.webhook("checkout.session.completed", object: try #require(harness.stripe.sessionObject(id: foreign.id))).status == .ok)

        // A session started elsewhere at a configured price is vouched for by its price.
        let priced = try await client.createCheckoutSession(
            CheckoutSessionRequest(
                mode: .subscription, priceID: "price_monthly", successURL: "https://pay.example.com/x", cancelURL: "https://pay.example.com/y"),
            idempotencyKey: "other-app-2")
        try harness.pay(priced.id, email: "priced@example.com")
        #expect(await harness.webhook("checkout.session.completed", object: try #require(harness.stripe.sessionObject(id: priced.id))).status == .ok)
        #expect(try await harness.count("SELECT COUNT(*) FROM purchases") == 1)
    }

    @Test("A promotion code is looked up in Stripe and applied as the session's discount; a coupon is passed as is")
    func couponCodes() async throws {
        let harness = try CheckoutHarness()
        let promotionID = harness.stripe.addPromotionCode("SPRING25", coupon: "co_spring")
        harness.stripe.addPromotionCode("OLD10", coupon: "co_old", active: false)
        let withCode = try await harness.startCheckout("plan=monthly&app_user_id=u-c&promotion_code=spring25")
        let body = try #require(harness.stripe.session(id: withCode)?.rawBody)
        #expect(
            body.contains("discounts%5B0%5D%5Bpromotion_code%5D=\(promotionID)") || body.contains("discounts[0][promotion_code]=\(promotionID)"),
            "\(body)")
        #expect(!body.contains("allow_promotion_codes"))
        let withCoupon = try await harness.startCheckout("plan=monthly&app_user_id=u-c&coupon=co_spring")
        let couponBody = try #require(harness.stripe.session(id: withCoupon)?.rawBody)
        #expect(couponBody.contains("co_spring"))

        let sessions = harness.stripe.sessions.count
        for (query, named) in [("promotion_code=NOPE", "NOPE"), ("promotion_code=OLD10", "OLD10"), ("coupon=co_missing", "co_missing")] {
            let refused = await harness.app.send(.get, "/checkout/start?plan=monthly&" + query)
            #expect(refused.status == .badRequest, "\(query)")
            #expect(refused.text.contains(named), "\(query): \(refused.text.prefix(300))")
        }
        let both = await harness.app.send(.get, "/checkout/start?plan=monthly&coupon=co_spring&promotion_code=SPRING25")
        #expect(both.status == .badRequest)
        #expect(harness.stripe.sessions.count == sessions)
    }

    @Test("A plan whose price Stripe does not know gets a page naming the plan and the key to fix")
    func unknownPlanPrice() async throws {
        let harness = try CheckoutHarness(extra: [
            "plans": [
                "monthly": ["price_id": "price_monthly", "mode": "subscription"],
                "demo": ["price_id": "price_demo_placeholder", "mode": "subscription"]
            ]
        ])
        let page = await harness.app.send(.get, "/checkout/start?plan=demo")
        #expect(page.status == .serviceUnavailable)
        #expect(page.text.contains("plans.demo.price_id"), "\(page.text.prefix(600))")
        #expect(page.text.contains("price_demo_placeholder"))
        #expect(harness.app.logs.lines.contains { $0.contains("No such price") }, "the log keeps Stripe's own message")
    }
}
