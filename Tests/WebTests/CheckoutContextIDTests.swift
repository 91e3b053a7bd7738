import Foundation
import HTTPCore
import HTTPRouting
import Testing

@testable import Web

/// Found by scripts/fuzz-live: Foundation's `UUID(uuidString:)` on Linux takes whitespace inside
/// a UUID ("…-111111\n11111" parses, as other digits), so such a `checkout_context_id` passed the
/// check, reached Stripe's metadata rules and answered 500. Only the 36-character hex form passes.
@Suite("checkout_context_id is a UUID, exactly")
struct CheckoutContextIDTests {
    static let whitespaced = [
        "11111111-1111-4111-8111-111111\n11111", "11111111-1111-4111-8111-1111111\t1111", " 1111111-1111-4111-8111-111111111111",
        "11111111-1111-4111-8111-11111111111\u{0B}"
    ]

    @Test("POST /checkout/start with a whitespaced checkout_context_id is 400, not 500", arguments: whitespaced)
    func refusedAtTheStart(id: String) async throws {
        let harness = try CheckoutHarness()
        let body = "plan=monthly&app_user_id=u1&checkout_context_id=" + FormURLEncoding.encode(id)
        let response = await harness.app.send(.post, "/checkout/start", headers: ["Content-Type": "application/x-www-form-urlencoded"], body: body)
        #expect(response.status == .badRequest, "\(id.debugDescription): \(response.status.code) \(response.text.prefix(200))")
        #expect(response.text.contains("checkout_context_id"))
    }

    @Test("A UUID in either case still starts a checkout")
    func acceptedAtTheStart() async throws {
        let harness = try CheckoutHarness()
        _ = try await harness.startCheckout("plan=monthly&checkout_context_id=0F1E2D3C-4B5A-4978-8695-A4B3C2D1E0F9")
        _ = try await harness.startCheckout("plan=monthly&checkout_context_id=0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9")
    }

    @Test(
        "UUIDInput takes 8-4-4-4-12 hex digits only",
        arguments: whitespaced + [
            "", "1111111-1111-4111-8111-111111111111", "11111111-1111-4111-8111-1111111111111", "11111111_1111-4111-8111-111111111111",
            "g1111111-1111-4111-8111-111111111111", "{11111111-1111-4111-8111-111111111111}", "11111111111141118111111111111111",
            "11111111-1111-4111-8111-11111111111\u{301}"
        ])
    func unit(text: String) {
        #expect(UUIDInput.canonical(text) == nil, "\(text.debugDescription)")
    }

    @Test func canonicalIsLowerCase() {
        #expect(UUIDInput.canonical("0F1E2D3C-4B5A-4978-8695-A4B3C2D1E0F9") == "0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9")
    }
}
