import Foundation
import HTTPCore
import HTTPRouting
import Testing

@testable import Web
@testable import App

/// Retries of a redemption go straight to the writer once the service has seen the app user
/// repeat it (`RecentRepeats`); these tests hold that path to the answers of the full one.
@Suite("Repeat redemptions remembered between retries")
struct RepeatRedemptionTests {
    static func status(_ response: HTTPResponse) -> String? { response.jsonObject?["status"] as? String }
    static func accountID(_ response: HTTPResponse) -> String? { (response.jsonObject?["account"] as? [String: Any])?["id"] as? String }
    static func accessToken(_ response: HTTPResponse) -> String? {
        (response.jsonObject?["session"] as? [String: Any])?["access_token"] as? String
    }

    @Test("From the second repeat on, a retry is answered from memory: same account, a new session that signs in")
    func rememberedRetries() async throws {
        let harness = try CheckoutHarness()
        let code = try await RedeemFlowTests.paidCode(harness)
        let memory = harness.app.app.useCases.recentRepeats
        let first = await harness.redeem(code, deviceID: "phone")
        #expect(memory.count == 0, "a first redemption is not a repeat")
        let second = await harness.redeem(code, deviceID: "phone")
        #expect(memory.count == 1, "the repeat was remembered")
        var tokens: Set<String> = [try #require(Self.accessToken(first)), try #require(Self.accessToken(second))]
        for _ in 0..<4 {
            let again = await harness.redeem(code.lowercased(), deviceID: "phone")
            #expect(Self.status(again) == "success")
            #expect(Self.accountID(again) == Self.accountID(first))
            #expect(again.jsonObject?["account_switched"] as? Bool == false)
            let entitlements = again.jsonObject?["redemption_info"].flatMap { ($0 as? [String: Any])?["entitlements"] as? [[String: Any]] }
            #expect(entitlements?.first?["active"] as? Bool == true)
            tokens.insert(try #require(Self.accessToken(again)))
        }
        #expect(tokens.count == 6, "every answer carries its own session")
        let signedIn = await harness.app.send(
            .get, "/api/v1/entitlements", headers: ["X-Api-Key": CheckoutHarness.apiKey, "Authorization": "Bearer \(tokens.first!)"])
        #expect(signedIn.status == .ok)
        #expect(try await harness.count("SELECT count(*) FROM devices") == 1)
        #expect(try await harness.count("SELECT count(*) FROM accounts") == 1)
        // Another app user is never answered from this user's memory.
        let stranger = await harness.redeem(code, appUserID: "user-2", deviceID: "tablet")
        #expect(stranger.jsonObject?["account_switched"] as? Bool == true, "the default policy switches the stranger in")
    }

    @Test("A remembered repeat reads the purchase afresh: a refund shows at once; a revoked code is invalid and forgotten")
    func refundAndRevoke() async throws {
        let harness = try CheckoutHarness()
        let id = try await harness.startCheckout("plan=lifetime&app_user_id=user-1&email=buyer%40example.com")
        try harness.pay(id)
        let code = try #require(CheckoutHarness.code(in: await harness.successPage(id)))
        let memory = harness.app.app.useCases.recentRepeats
        _ = await harness.redeem(code)
        _ = await harness.redeem(code)
        #expect(memory.count == 1)

        let intent = try #require(harness.stripe.session(id: id)?.paymentIntentID)
        harness.clock.advance(60)
        #expect(await harness.deliver(try harness.stripe.refund(paymentIntentID: intent)).status == .ok)
        let refunded = await harness.redeem(code)
        #expect(Self.status(refunded) == "expired_subscription")

        var headers = TestApp.adminHeaders
        headers.set("Content-Type", "application/json")
        let list = await harness.app.send(.get, "/admin/v1/codes?email=buyer@example.com", headers: headers)
        let codeID = try #require((list.jsonObject?["codes"] as? [[String: Any]])?.first?["id"] as? String)
        let revoked = await harness.app.send(.post, "/admin/v1/codes/\(codeID)/revoke", headers: headers)
        #expect(revoked.jsonObject?["status"] as? String == "revoked")
        let afterRevoke = await harness.redeem(code)
        #expect(Self.status(afterRevoke) == "invalid_code")
        #expect(afterRevoke.jsonObject?["session"] == nil)
        #expect(memory.count == 0, "a plan that failed its check is forgotten")
    }

    @Test("When the purchase moved away meanwhile, a remembered retry takes the full path and its policy", arguments: ["switch", "transfer"])
    func purchaseMovedMeanwhile(policy: String) async throws {
        let harness = try CheckoutHarness(redemption: ["on_other_user": policy])
        let code = try await RedeemFlowTests.paidCode(harness)
        let owner = await harness.redeem(code, appUserID: "owner", deviceID: "d1")
        _ = await harness.redeem(code, appUserID: "owner", deviceID: "d1")
        let ownerAccount = try #require(Self.accountID(owner))
        let other = await harness.redeem(code, appUserID: "other", deviceID: "d2")
        #expect(Self.status(other) == "success")

        let back = await harness.redeem(code, appUserID: "owner", deviceID: "d1")
        #expect(Self.status(back) == "success")
        #expect(Self.accountID(back) == ownerAccount)
        #expect(back.jsonObject?["account_switched"] as? Bool == false)
        let otherEntitlements = await harness.app.send(.get, "/api/v1/entitlements?app_user_id=other", headers: ["X-Api-Key": CheckoutHarness.apiKey])
        let otherActive = (otherEntitlements.jsonObject?["entitlements"] as? [[String: Any]])?.contains { $0["active"] as? Bool == true }
        // switch: "other" joined the owner's account and keeps access; transfer: the purchase moved back.
        #expect(otherActive == (policy == "switch"))
    }
}
