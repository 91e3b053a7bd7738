import Domain
import Foundation
import HTTPCore
import HTTPRouting
import Testing

@testable import Web
@testable import App

@Suite("Admin: codes, purchases and the audit log")
struct AdminCodeTests {
    @Test("Resend by email or purchase, revoke, list — each audited, each behind the admin token")
    func resendRevokeList() async throws {
        let harness = try CheckoutHarness()
        let code = try await RedeemFlowTests.paidCode(harness)
        var headers = TestApp.adminHeaders
        headers.set("Content-Type", "application/json")

        let noToken = await harness.app.send(
            .post, "/admin/v1/codes/resend", headers: ["Content-Type": "application/json"], body: #"{"email":"buyer@example.com"}"#)
        #expect(noToken.status == .unauthorized)

        let resent = await harness.app.send(.post, "/admin/v1/codes/resend", headers: headers, body: #"{"email":"Buyer@example.com"}"#)
        #expect(resent.status == .ok)
        #expect(resent.jsonObject?["sent_to"] as? String == "b•••@e•••.com")
        let codeID = try #require(resent.jsonObject?["code_id"] as? String)
        #expect((resent.jsonObject?["expires_at"] as? String)?.hasSuffix("Z") == true)
        // The old code was replaced.
        #expect(await harness.redeem(code).jsonObject?["status"] as? String == "expired_code")

        let codes = await harness.app.send(.get, "/admin/v1/codes?email=buyer@example.com", headers: headers)
        let list = try #require(codes.jsonObject?["codes"] as? [[String: Any]])
        #expect(list.count == 2)
        #expect(list.first?["id"] as? String == codeID && list.first?["status"] as? String == "live")
        #expect(!codes.text.contains(code.replacingOccurrences(of: "-", with: "")))

        let revoked = await harness.app.send(.post, "/admin/v1/codes/\(codeID)/revoke", headers: headers)
        #expect(revoked.jsonObject?["status"] as? String == "revoked")
        #expect(await harness.app.send(.post, "/admin/v1/codes/code_nope/revoke", headers: headers).status == .notFound)

        let purchases = await harness.app.send(.get, "/admin/v1/purchases?email=buyer@example.com", headers: headers)
        let purchaseList = try #require(purchases.jsonObject?["purchases"] as? [[String: Any]])
        #expect(purchaseList.count == 1)
        let purchaseID = try #require(purchaseList.first?["id"] as? String)
        let byPurchase = await harness.app.send(.post, "/admin/v1/codes/resend", headers: headers, body: "{\"purchase_id\":\"\(purchaseID)\"}")
        #expect(byPurchase.status == .ok)

        let both = await harness.app.send(
            .post, "/admin/v1/codes/resend", headers: headers, body: "{\"purchase_id\":\"\(purchaseID)\",\"email\":\"a@b.c\"}")
        #expect(both.status == .badRequest)
        let unknown = await harness.app.send(.post, "/admin/v1/codes/resend", headers: headers, body: #"{"email":"nobody@example.com"}"#)
        #expect(unknown.status == .notFound)

        let audit = await harness.app.send(.get, "/admin/v1/audit", headers: headers)
        let actions = try #require(audit.jsonObject?["entries"] as? [[String: Any]]).compactMap { $0["action"] as? String }
        #expect(actions.count == 3, "the failed revoke of an unknown code is not an action")
        #expect(actions.filter { $0 == "code.resend" }.count == 2)
        #expect(actions.filter { $0 == "code.revoke" }.count == 1)
        #expect(try await harness.count("SELECT count(*) FROM mail_outbox WHERE template = 'code_resent'") == 2)
    }
}

@Suite("Admin: accounts")
struct AdminAccountTests {
    @Test("Accounts of an email list their app users, devices and purchases, behind the admin token")
    func accounts() async throws {
        let harness = try CheckoutHarness()
        let code = try await RedeemFlowTests.paidCode(harness)
        _ = await harness.redeem(code, appUserID: "user-7", deviceID: "phone-7")
        let account = try await harness.app.app.database.write { connection -> Domain.Account in
            let account = try #require(try AccountRepository.find(appUserID: "user-7", on: connection))
            try AccountRepository.requestEmail("seven@example.com", accountID: account.id, on: connection, now: harness.clock.now)
            return account
        }
        #expect(await harness.app.send(.get, "/admin/v1/accounts?email=seven@example.com").status == .unauthorized)
        let response = await harness.app.send(.get, "/admin/v1/accounts?email=Seven@example.com", headers: TestApp.adminHeaders)
        let list = try #require(response.jsonObject?["accounts"] as? [[String: Any]])
        #expect(list.count == 1)
        #expect(list.first?["id"] as? String == account.id)
        #expect(list.first?["app_user_ids"] as? [String] == ["user-7"])
        #expect(list.first?["devices"] as? [String] == ["phone-7"])
        #expect((list.first?["purchase_ids"] as? [String])?.count == 1)
        #expect(list.first?["has_password"] as? Bool == false)
        #expect(!response.text.contains("password_hash"))
    }

    @Test("An app-started checkout's buyer: the account that holds the purchase is found by the address it was paid with, as purchases are")
    func accountOfAnAppStartedCheckout() async throws {
        let harness = try CheckoutHarness()
        let session = try await harness.startCheckout("plan=monthly&app_user_id=user-9&email=nine%40example.com")
        try harness.pay(session, email: "nine@example.com")
        _ = await harness.successPage(session)
        let purchases = await harness.app.send(.get, "/admin/v1/purchases?email=nine%40example.com", headers: TestApp.adminHeaders)
        #expect((purchases.jsonObject?["purchases"] as? [Any])?.count == 1)
        let response = await harness.app.send(.get, "/admin/v1/accounts?email=nine%40example.com", headers: TestApp.adminHeaders)
        let list = try #require(response.jsonObject?["accounts"] as? [[String: Any]])
        #expect(list.count == 1, "the operator finds the buyer that /admin/v1/purchases lists")
        #expect(list.first?["app_user_ids"] as? [String] == ["user-9"])
        #expect((list.first?["purchase_ids"] as? [String])?.count == 1)
    }
}
