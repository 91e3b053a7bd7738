import Foundation
import HTTPCore
import HTTPRouting
import Testing

@testable import Web

@Suite("Web checkout against a fake Stripe")
struct CheckoutFlowTests {
    @Test("Start creates a Stripe session with the app's context and redirects to it")
    func start() async throws {
        let harness = try CheckoutHarness()
        let ply = Data(#"{"presentation_id":"pres_1","placement_id":"onboarding","ab_test_id":7}"#.utf8).base64EncodedString()
        let contextID = "6F9619FF-8B86-D011-B42D-00CF4FC964FF"
        let id = try await harness.startCheckout(
            "plan=monthly&app_user_id=user-1&checkout_context_id=\(contextID)&ply_context=\(FormURLEncoding.encode(ply))&utm_source=newsletter&campaign_name=spring"
        )
        let session = try #require(harness.stripe.session(id: id))
        #expect(session.priceID == "price_monthly" && session.mode == "subscription")
        #expect(session.clientReferenceID == "user-1")
        #expect(session.successURL == "https://pay.example.com/checkout/success?session_id={CHECKOUT_SESSION_ID}")
        #expect(session.cancelURL == "https://pay.example.com/checkout/cancel")
        #expect(session.metadata["utm_source"] == "newsletter")
        #expect(session.metadata["campaign_name"] == "spring")
        #expect(session.metadata["ply_placement_id"] == "onboarding")
        #expect(session.metadata["ply_ab_test_id"] == "7")
        #expect(session.metadata["checkout_context_id"] == contextID.lowercased())
        #expect(session.subscriptionMetadata["app_user_id"] == "user-1")
        #expect(session.idempotencyKey == "checkout:" + contextID.lowercased())
        #expect(try await harness.count("SELECT count(*) FROM checkouts") == 1)
    }

    @Test(
        "Bad checkout inputs get a 400 page and create nothing",
        arguments: [
            "plan=gold", "", "price_id=price_other", "plan=monthly&checkout_context_id=not-a-uuid",
            "plan=monthly&redirect_url=https%3A%2F%2Fevil.example%2F", "plan=monthly&ply_context=%25%25%25"
        ])
    func badStart(query: String) async throws {
        let harness = try CheckoutHarness()
        let response = await harness.app.send(.get, "/checkout/start?" + query)
        #expect(response.status == .badRequest)
        #expect(response.headers["Content-Type"]?.hasPrefix("text/html") == true)
        #expect(harness.stripe.sessions.isEmpty)
    }

    @Test("Browser first, then the webhook: one code, one email, and a refresh shows the same code")
    func browserFirst() async throws {
        let harness = try CheckoutHarness()
        let id = try await harness.startCheckout()
        try harness.pay(id)
        let page = await harness.successPage(id)
        #expect(page.status == .ok, "\(page.text.prefix(500))")
        let code = try #require(CheckoutHarness.code(in: page))
        #expect(page.text.contains("b•••@e•••.com"))
        // `=` is escaped in attributes (`&#61;`); browsers decode it back.
        #expect(page.text.contains("exampleapp://redeem?code&#61;\(code)"))
        #expect(page.text.contains("https://pay.example.com/redeem/\(code)"))
        #expect(page.text.contains("<svg"), "a desktop browser gets the QR code")
        let refresh = await harness.successPage(id)
        #expect(CheckoutHarness.code(in: refresh) == code)
        let object = try #require(harness.stripe.sessionObject(id: id))
        let hook = await harness.webhook("checkout.session.completed", object: object)
        #expect(hook.status == .ok, "\(hook.text)")
        #expect(try await harness.count("SELECT count(*) FROM redemption_codes") == 1)
        #expect(try await harness.count("SELECT count(*) FROM mail_outbox WHERE template = 'redemption_code'") == 1)
        #expect(try await harness.count("SELECT count(*) FROM purchases") == 1)
    }

    @Test(
        "The success page opens the app by itself: on Android an intent:// link falling back to Google Play with the code as install referrer; on iOS the universal link first, then the App Store"
    )
    func opensTheApp() async throws {
        let harness = try CheckoutHarness()
        let id = try await harness.startCheckout()
        try harness.pay(id)
        let android = await harness.successPage(
            id, userAgent: "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36")
        let code = try #require(CheckoutHarness.code(in: android))
        let href = try #require(
            android.text.range(of: #"id="open-app"[^>]*href="[^"]+""#, options: .regularExpression)
                .map { String(android.text[$0]) }?.components(separatedBy: #"href=""#).last?.dropLast())
        // Attributes escape `=` and `&` (browsers decode them back).
        let intent = href.replacingOccurrences(of: "&#61;", with: "=").replacingOccurrences(of: "&amp;", with: "&")
        let marker = ";S.browser_fallback_url="
        #expect(intent.hasPrefix("intent://redeem?code=\(code)#Intent;scheme=exampleapp;package=com.example.app\(marker)"), "\(intent)")
        let encodedFallback = try #require(intent.components(separatedBy: marker).last?.components(separatedBy: ";end").first)
        // Chrome decodes the extra once: the Play listing with referrer=tollgate_code%3D<CODE>.
        let fallback = try #require(encodedFallback.removingPercentEncoding)
        #expect(fallback == "https://play.google.com/store/apps/details?id=com.example.app&referrer=tollgate_code%3D\(code)")
        // Google Play hands the app the decoded referrer at first launch; the client reads the code in it.
        let referrer = try #require(URLComponents(string: fallback)?.queryItems?.first { $0.name == "referrer" }?.value)
        #expect(referrer == "tollgate_code=\(code)")

        let iPhone = await harness.successPage(
            id,
            userAgent:
                "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"
        )
        let first = try #require(
            iPhone.text.range(of: #"id="open-app"[^>]*href="[^"]+""#, options: .regularExpression).map { String(iPhone.text[$0]) })
        #expect(first.contains("href=\"https://pay.example.com/redeem/\(code)\""), "the universal link first: \(first)")
        #expect(iPhone.text.contains("https://apps.apple.com/app/id1"), "then the App Store")
    }

    @Test("Webhook first, then the browser: the page shows the code the webhook issued")
    func webhookFirst() async throws {
        let harness = try CheckoutHarness()
        let id = try await harness.startCheckout()
        try harness.pay(id)
        let hook = await harness.webhook("checkout.session.completed", object: try #require(harness.stripe.sessionObject(id: id)))
        #expect(hook.status == .ok)
        #expect(try await harness.count("SELECT count(*) FROM redemption_codes") == 1)
        let page = await harness.successPage(id, userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)")
        #expect(CheckoutHarness.code(in: page) != nil)
        #expect(!page.text.contains("<svg"), "no QR code on a phone")
        #expect(page.text.contains("App Store") && !page.text.contains("Google Play"))
        #expect(try await harness.count("SELECT count(*) FROM redemption_codes") == 1)
        #expect(try await harness.count("SELECT count(*) FROM mail_outbox") == 1)
    }

    @Test("Webhook and browser at the same time still make one code and one email")
    func bothAtOnce() async throws {
        let harness = try CheckoutHarness()
        let id = try await harness.startCheckout()
        try harness.pay(id)
        let object = try #require(harness.stripe.sessionObject(id: id))
        async let page = harness.successPage(id)
        async let hook = harness.webhook("checkout.session.completed", object: object)
        async let page2 = harness.successPage(id)
        let (first, second, third) = await (page, hook, page2)
        #expect(first.status == .ok && second.status == .ok && third.status == .ok)
        #expect(CheckoutHarness.code(in: first) == CheckoutHarness.code(in: third))
        #expect(try await harness.count("SELECT count(*) FROM redemption_codes") == 1)
        #expect(try await harness.count("SELECT count(*) FROM mail_outbox") == 1)
    }

    @Test("An unpaid session shows a clear page and issues no code; an unknown one is 404")
    func unpaidAndUnknown() async throws {
        let harness = try CheckoutHarness()
        let id = try await harness.startCheckout()
        let unpaid = await harness.successPage(id)
        #expect(unpaid.status == .ok)
        #expect(unpaid.text.contains("not complete"))
        #expect(CheckoutHarness.code(in: unpaid) == nil)
        #expect(try await harness.count("SELECT count(*) FROM redemption_codes") == 0)
        let unknown = await harness.successPage("cs_test_doesnotexist")
        #expect(unknown.status == .notFound)
        let garbage = await harness.app.send(.get, "/checkout/success?session_id=%3Cscript%3E")
        #expect(garbage.status == .badRequest)
        #expect(!garbage.text.contains("<script>"))
    }

    @Test("Stripe down at the success page: a retryable 502 page, nothing half-written")
    func stripeDown() async throws {
        let harness = try CheckoutHarness()
        let id = try await harness.startCheckout()
        try harness.pay(id)
        harness.stripe.failNextRequests(status: 500, count: 10)
        let page = await harness.successPage(id)
        #expect(page.status == .badGateway)
        #expect(try await harness.count("SELECT count(*) FROM purchases") == 0)
        #expect(try await harness.count("SELECT count(*) FROM redemption_codes") == 0)
    }

    @Test("Redirect mode sends the browser to the configured URL with the purchase in the query")
    func redirectMode() async throws {
        let harness = try CheckoutHarness(redemption: ["mode": "redirect"])
        let id = try await harness.startCheckout("plan=monthly&app_user_id=user-9&utm_source=ads")
        try harness.pay(id, email: "nine@example.com")
        let response = await harness.successPage(id)
        #expect(response.status == .found)
        let location = try #require(response.headers["Location"])
        #expect(location.hasPrefix("https://example.com/welcome?"))
        let query = FormURLEncoding.decode(String(location.split(separator: "?", maxSplits: 1)[1]))
        let values = Dictionary(query.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
        #expect(values["app_user_id"] == "user-9")
        #expect(values["email"] == "nine@example.com")
        #expect(values["stripe_subscription_id"]?.hasPrefix("sub_") == true)
        #expect(values["code"]?.count == 19)
        #expect(values["utm_source"] == "ads")
    }

    @Test("A one-time payment plan records the payment intent and grants a non-expiring entitlement")
    func oneTimePayment() async throws {
        let harness = try CheckoutHarness()
        let id = try await harness.startCheckout("plan=lifetime&app_user_id=user-2")
        try harness.pay(id)
        let page = await harness.successPage(id)
        let code = try #require(CheckoutHarness.code(in: page))
        let redeemed = await harness.redeem(code, appUserID: "user-2")
        let purchase = try #require((redeemed.jsonObject?["redemption_info"] as? [String: Any])?["purchase"] as? [String: Any])
        #expect((purchase["payment_intent_id"] as? String)?.hasPrefix("pi_") == true)
        #expect(purchase["expires_at"] is NSNull)
        let entitlements = try #require((redeemed.jsonObject?["redemption_info"] as? [String: Any])?["entitlements"] as? [[String: Any]])
        #expect(entitlements.first?["active"] as? Bool == true)
    }

    @Test("The app can poll its checkout_context_id: pending, then complete and linked to its user")
    func pollCheckout() async throws {
        let harness = try CheckoutHarness()
        let contextID = "0b7e5f4a-1c2d-4e3f-8a9b-0c1d2e3f4a5b"
        let id = try await harness.startCheckout("plan=monthly&app_user_id=user-5&checkout_context_id=\(contextID)")
        let headers: HTTPHeaders = ["X-Api-Key": CheckoutHarness.apiKey]
        let pending = await harness.app.send(.get, "/api/v1/checkout/\(contextID)?app_user_id=user-5", headers: headers)
        #expect(pending.jsonObject?["status"] as? String == "pending")
        #expect(pending.jsonObject?["poll_after_seconds"] as? Int == 5)
        try harness.pay(id)
        #expect(await harness.webhook("checkout.session.completed", object: try #require(harness.stripe.sessionObject(id: id))).status == .ok)
        let complete = await harness.app.send(.get, "/api/v1/checkout/\(contextID)?app_user_id=user-5", headers: headers)
        #expect(complete.jsonObject?["status"] as? String == "complete")
        #expect(complete.jsonObject?["poll_after_seconds"] == nil)
        let result = try #require(complete.jsonObject?["result"] as? [String: Any])
        #expect(result["status"] as? String == "success")
        // Anyone else learns the status only.
        let stranger = await harness.app.send(.get, "/api/v1/checkout/\(contextID)?app_user_id=someone-else", headers: headers)
        #expect(stranger.jsonObject?["status"] as? String == "complete")
        #expect(stranger.jsonObject?["result"] == nil)
        let entitlements = await harness.app.send(.get, "/api/v1/entitlements?app_user_id=user-5", headers: headers)
        let list = try #require(entitlements.jsonObject?["entitlements"] as? [[String: Any]])
        #expect(list.first?["id"] as? String == "premium")
        #expect(list.first?["active"] as? Bool == true)
        #expect(list.first?["source"] as? String == "stripe")
        // An id not seen yet (the browser has not reached /checkout/start) is pending, not 404.
        let unknown = await harness.app.send(.get, "/api/v1/checkout/11111111-2222-4333-8444-555555555555", headers: headers)
        #expect(unknown.status == .ok)
        #expect(unknown.jsonObject?["status"] as? String == "pending")
        #expect(unknown.jsonObject?["poll_after_seconds"] as? Int == 5)
    }

    @Test("The cancel page offers a way back into the app")
    func cancel() async throws {
        let harness = try CheckoutHarness()
        let page = await harness.app.send(.get, "/checkout/cancel")
        #expect(page.status == .ok)
        #expect(page.text.contains("exampleapp://checkout/cancel"))
    }
}
