import Foundation
import HTTPCore
import Testing
import TestSupport

/// `/checkout/start` inputs as the seed platforms send them (issue 43, items 7 and 9): Cleeng's
/// `couponCode`, an alpha-2 storefront, and a `ply_context` whose `+` an app left raw in the query.
@Suite("Checkout start: Cleeng's couponCode, alpha-2 storefronts, a raw + in ply_context")
struct SeedCheckoutInputsTests {
    @Test("Cleeng's couponCode is a promotion code: looked up in Stripe and applied as the discount, never a custom parameter")
    func couponCodeIsAPromotionCode() async throws {
        let harness = try CheckoutHarness()
        let promotionID = harness.stripe.addPromotionCode("SPRING25", coupon: "co_spring")
        let id = try await harness.startCheckout("plan=monthly&app_user_id=u-cleeng&couponCode=SPRING25")
        let session = try #require(harness.stripe.session(id: id))
        #expect(
            session.rawBody.contains("discounts%5B0%5D%5Bpromotion_code%5D=\(promotionID)")
                || session.rawBody.contains("discounts[0][promotion_code]=\(promotionID)"),
            "\(session.rawBody)")
        #expect(session.metadata["couponCode"] == nil, "not carried as a custom parameter")

        let sessions = harness.stripe.sessions.count
        let unknown = await harness.app.send(.get, "/checkout/start?plan=monthly&couponCode=NOPE")
        #expect(unknown.status == .badRequest && unknown.text.contains("NOPE"), "an unknown code is refused, not charged at full price")
        let two = await harness.app.send(.get, "/checkout/start?plan=monthly&couponCode=SPRING25&promotion_code=OTHER")
        #expect(two.status == .badRequest)
        let withCoupon = await harness.app.send(.get, "/checkout/start?plan=monthly&couponCode=SPRING25&coupon=co_spring")
        #expect(withCoupon.status == .badRequest)
        #expect(harness.stripe.sessions.count == sessions)
    }

    @Test("An alpha-2 storefront is its alpha-3 one: eligibility links out from US, its checkout_url names USA, and /checkout/start takes US")
    func alpha2Storefront() async throws {
        let harness = try CheckoutHarness()
        let eligibility = await harness.app.send(
            .get, "/api/v1/checkout/eligibility?platform=ios&storefront=us", headers: ["X-Api-Key": CheckoutHarness.apiKey])
        #expect(eligibility.status == .ok, "\(eligibility.text)")
        #expect(eligibility.jsonObject?["link_out"] as? Bool == true)
        #expect(eligibility.jsonObject?["program"] as? String == "us_link")
        #expect(eligibility.jsonObject?["checkout_url"] as? String == "https://pay.example.com/checkout/start?platform=ios&storefront=USA")
        let france = await harness.app.send(
            .get, "/api/v1/checkout/eligibility?platform=ios&storefront=FR", headers: ["X-Api-Key": CheckoutHarness.apiKey])
        #expect(france.status == .ok && france.jsonObject?["link_out"] as? Bool == false)

        let id = try await harness.startCheckout("plan=monthly&app_user_id=u-us&platform=ios&storefront=US")
        #expect(harness.stripe.session(id: id) != nil)
        let elsewhere = await harness.app.send(.get, "/checkout/start?plan=monthly&platform=ios&storefront=FR")
        #expect(elsewhere.status == .badRequest && elsewhere.text.contains("FRA"), "\(elsewhere.text.prefix(400))")
    }

    @Test("A ply_context left with a raw + in the query (URLComponents does not escape it) is read with its +")
    func rawPlusInPlyContext() async throws {
        let harness = try CheckoutHarness()
        let encoded = Data(#"{"placement_id":"onb>0","presentation_id":"pres~0"}"#.utf8).base64EncodedString()
        try #require(encoded.contains("+"))
        let id = try await harness.startCheckout("plan=monthly&app_user_id=u-ply&ply_context=" + encoded)
        let metadata = try #require(harness.stripe.session(id: id)?.metadata)
        #expect(metadata["ply_placement_id"] == "onb>0")
        #expect(metadata["ply_presentation_id"] == "pres~0")
        // Escaped as %2B it reads the same; garbage stays a 400.
        let escaped = try await harness.startCheckout(
            "plan=monthly&app_user_id=u-ply&ply_context=" + encoded.replacingOccurrences(of: "+", with: "%2B"))
        #expect(harness.stripe.session(id: escaped)?.metadata["ply_placement_id"] == "onb>0")
        let garbage = await harness.app.send(.get, "/checkout/start?plan=monthly&ply_context=a+b+c")
        #expect(garbage.status == .badRequest)
    }
}
