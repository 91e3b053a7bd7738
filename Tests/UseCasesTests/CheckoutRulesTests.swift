import Domain
import Foundation
import Testing

@testable import UseCases

/// The rules `/checkout/start` once kept in the web layer, without HTTP: which plan an order
/// buys, which redirect URLs it may name, and what Stripe's metadata carries.
@Suite("Checkout rules")
struct CheckoutRulesTests {
    static let plans: [String: CheckoutPlan] = [
        "monthly": CheckoutPlan(priceID: "price_monthly", isOneTimePayment: false),
        "lifetime": CheckoutPlan(priceID: "price_lifetime", isOneTimePayment: true)
    ]

    static func naming(_ input: String, _ value: String) -> CheckoutPlanChoice.Naming { .init(input: input, value: value) }

    @Test(
        "A plan is named by name, price or plan_id; namings must agree; an unknown one is a 400",
        arguments: [
            ([naming("plan", "monthly")], "monthly"),
            ([naming("price_id", "price_lifetime")], "lifetime"),
            ([naming("plan_id", "price_monthly")], "monthly"),
            ([naming("plan_id", "lifetime")], "lifetime"),
            ([naming("plan", "monthly"), naming("ply_context's stripe_price_id", "price_monthly")], "monthly"),
            ([naming("plan", "monthly"), naming("price_id", "price_lifetime")], nil),
            ([naming("plan", "price_monthly")], nil),
            ([naming("price_id", "monthly")], nil),
            ([], nil)
        ] as [([CheckoutPlanChoice.Naming], String?)])
    func planChoice(_ namings: [CheckoutPlanChoice.Naming], chosen: String?) {
        do {
            let choice = try CheckoutPlanChoice(namings, plans: Self.plans)
            #expect(choice.name == chosen)
            #expect(choice.plan == Self.plans[choice.name])
        } catch let error as UseCaseError {
            #expect(chosen == nil, "\(error.message)")
            #expect(error.kind == .badRequest)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test("An order's plan and redirect URL are refused (400) before Stripe is even needed")
    func refusedBeforeStripe() async throws {
        let bench = try UseCaseBench()
        let start = StartCheckout(
            database: bench.database, stripe: nil, links: bench.links, plans: Self.plans,
            redirects: CheckoutRedirects(urls: ["https://app.example.test/done"]), allowPromotionCodes: false,
            linkOut: LinkOutCheckout(policy: LinkOutPolicy(rules: []), app: .init(bundleID: nil, appAppleID: nil)),
            tokenVault: try LinkOutTokenVault(secrets: bench.secrets), logger: .disabled)
        func refusal(_ order: StartCheckout.Order) async -> UseCaseError? {
            do { _ = try await start.start(order, now: bench.now) } catch let error as UseCaseError { return error } catch {}
            return nil
        }
        let unknownPlan = StartCheckout.Order(
            planNamings: [Self.naming("plan", "weekly")], appUserID: nil, checkoutContextID: nil, email: nil, redirectURL: nil)
        #expect(await refusal(unknownPlan)?.kind == .badRequest)
        let openRedirect = StartCheckout.Order(
            planNamings: [Self.naming("plan", "monthly")], appUserID: nil, checkoutContextID: nil, email: nil,
            redirectURL: "https://evil.example.test/")
        #expect(await refusal(openRedirect)?.message == "redirect_url is not one of the configured redirect URLs.")
        let fine = StartCheckout.Order(
            planNamings: [Self.naming("plan", "monthly")], appUserID: nil, checkoutContextID: nil, email: nil,
            redirectURL: "https://app.example.test/done")
        #expect(await refusal(fine)?.kind == .notConfigured, "a good order without Stripe is not configured")
    }

    @Test("Stripe's metadata: the plan and who started it first, then the context within 50 keys of 40 and values of 500")
    func metadataWithinStripesLimits() throws {
        var context: [String: String] = ["a_long_value": String(repeating: "v", count: 600), "b[utm]": "mail"]
        for index in 0..<60 { context[String(format: "custom_%02d", index)] = "x" }
        let order = StartCheckout.Order(
            planNamings: [], appUserID: "user-1", checkoutContextID: "ctx", email: nil, redirectURL: nil, context: context)
        let choice = try CheckoutPlanChoice([Self.naming("plan", "monthly")], plans: Self.plans)
        let metadata = StartCheckout.metadata(order, choice: choice)
        #expect(metadata.count == 50)
        #expect(metadata["plan"] == "monthly" && metadata["price_id"] == "price_monthly")
        #expect(metadata["app_user_id"] == "user-1" && metadata["checkout_context_id"] == "ctx")
        #expect(metadata["custom_00"] == "x")
        #expect(metadata["a_long_value"]?.count == 500)
        #expect(metadata["butm"] == "mail", "brackets are dropped from keys")
        #expect(metadata.keys.allSatisfy { $0.count <= 40 && !$0.contains("[") })
    }

    @Test("Redirect mode's query encodes everything but RFC 3986's unreserved characters")
    func redirectEncoding() {
        #expect(CheckoutRedirects.encode("a b&c=d/é~-._") == "a%20b%26c%3Dd%2F%C3%A9~-._")
    }

    @Test("The context and Stripe's metadata are stored as one JSON object of strings: keys sorted, '/' as it is, nil when empty")
    func contextText() throws {
        let context = ["utm_source": "news/letter", "ply_n": "1", "campaign": "\"q\""]
        #expect(StartCheckout.contextJSON(context) == #"{"campaign":"\"q\"","ply_n":"1","utm_source":"news/letter"}"#)
        #expect(StartCheckout.contextJSON([:]) == "{}")
        #expect(CompleteCheckout.json([:]) == nil)
        #expect(CompleteCheckout.json(["app_user_id": "u/1", "amount": "0"]) == #"{"amount":"0","app_user_id":"u/1"}"#)
    }
}
