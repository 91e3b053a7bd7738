import Foundation
import HTTPCore
import Testing

/// Purchasely's ways into web checkout, as its sample app and deeplinks send them: a JSON body
/// with only `ply_context` (the Stripe price inside it), and `web_checkout/?plan_id=[stripe_price_id]`.
@Suite("Purchasely starts web checkout")
struct PurchaselyCheckoutTests {
    /// The context Purchasely's sample sends: base64 of its JSON, the price among its fields.
    private static func plyContext(price: String) -> String {
        Data(
            #"{"presentation_id":"PRES_1","placement_id":"onboarding","stripe_price_id":"\#(price)","stripe_object_type":"subscription","original_platform":"IOS"}"#
                .utf8
        ).base64EncodedString()
    }

    private static func postContext(_ harness: CheckoutHarness, price: String, extra: String = "") async -> HTTPResponse {
        let body = #"{"ply_context": ""# + plyContext(price: price) + #"""# + extra + "}"
        return await harness.app.send(.post, "/checkout/start", headers: ["Content-Type": "application/json"], bytes: Array(body.utf8))
    }

    @Test("The sample app's POST of only ply_context starts the plan of its stripe_price_id")
    func contextAlone() async throws {
        let harness = try CheckoutHarness()
        let response = await Self.postContext(harness, price: "price_monthly")
        #expect(response.status == .seeOther, "\(response.text.prefix(400))")
        let session = try #require(harness.stripe.sessions.first)
        #expect(session.priceID == "price_monthly" && session.mode == "subscription")
        #expect(session.metadata["plan"] == "monthly")
        #expect(session.metadata["ply_presentation_id"] == "PRES_1")
    }

    @Test(
        "The deeplink's plan_id (a Stripe price, or a plan's name) starts that plan",
        arguments: [
            ("price_lifetime", "payment"), ("monthly", "subscription")
        ])
    func planID(value: String, mode: String) async throws {
        let harness = try CheckoutHarness()
        let response = await harness.app.send(.get, "/checkout/start?plan_id=\(value)&app_user_id=ply-user-1")
        #expect(response.status == .seeOther, "\(response.text.prefix(400))")
        let session = try #require(harness.stripe.sessions.first)
        #expect(session.mode == mode)
        #expect(session.clientReferenceID == "ply-user-1")
        #expect(session.metadata["plan_id"] == nil, "plan_id is checkout's own input, not a custom parameter")
    }

    @Test("Two namings that agree start the plan; ones that disagree, or a price that is no plan's, get a 400 page naming what was sent")
    func disagreement() async throws {
        let harness = try CheckoutHarness()
        let agree = await Self.postContext(harness, price: "price_monthly", extra: #", "plan_id": "price_monthly", "plan": "monthly""#)
        #expect(agree.status == .seeOther, "\(agree.text.prefix(400))")
        #expect(harness.stripe.sessions.count == 1)

        let disagree = await Self.postContext(harness, price: "price_monthly", extra: #", "plan_id": "price_lifetime""#)
        #expect(disagree.status == .badRequest)
        #expect(disagree.headers["Content-Type"]?.hasPrefix("text/html") == true)
        #expect(disagree.text.contains("price_lifetime") && disagree.text.contains("price_monthly"), "\(disagree.text.prefix(600))")

        let unknown = await Self.postContext(harness, price: "price_elsewhere")
        #expect(unknown.status == .badRequest)
        #expect(unknown.text.contains("price_elsewhere"))
        let unknownPlanID = await harness.app.send(.get, "/checkout/start?plan_id=price_nowhere")
        #expect(unknownPlanID.status == .badRequest)
        #expect(unknownPlanID.text.contains("price_nowhere") && unknownPlanID.text.contains("plan_id"))
        #expect(harness.stripe.sessions.count == 1)
    }
}
