import Domain
import Foundation
import HTTPCore
import Testing
import TestSupport

@testable import App
@testable import Web

/// `DELETE /api/v1/account`, `GET /api/v1/account/export` and `DELETE /admin/v1/accounts/{id}`
/// through HTTP against the fake Stripe (API.md "Account deletion and data export"). The rules
/// themselves are tested without HTTP in `DeleteAccountTests`.
@Suite("Account deletion and data export over HTTP")
struct AccountDeletionTests {
    /// A web purchase by `email`, redeemed by `user-1` on `device-1`: the code, the access token
    /// and the account id.
    static func redeemedPurchase(_ harness: CheckoutHarness, email: String = "buyer@example.com") async throws
        -> (code: String, access: String, accountID: String)
    {
        let session = try await harness.startCheckout("plan=monthly&app_user_id=user-1&email=" + email.replacingOccurrences(of: "@", with: "%40"))
        try harness.pay(session, email: email)
        let code = try #require(CheckoutHarness.code(in: await harness.successPage(session)))
        let redeemed = await harness.redeem(code, deviceID: "device-1")
        #expect(redeemed.status == .ok)
        let json = try #require(redeemed.jsonObject)
        let access = try #require((json["session"] as? [String: Any])?["access_token"] as? String)
        let accountID = try #require((json["account"] as? [String: Any])?["id"] as? String)
        return (code, access, accountID)
    }

    static func bearer(_ token: String) -> HTTPHeaders {
        ["X-Api-Key": CheckoutHarness.apiKey, "Authorization": "Bearer \(token)"]
    }

    /// Every row of every table as text.
    static func everyRow(_ harness: CheckoutHarness) async throws -> [(table: String, row: String)] {
        try await harness.app.app.database.read { connection in
            var rows: [(String, String)] = []
            for table in try TableNames.all(connection) {
                for row in try connection.query("SELECT * FROM \(table)") {
                    let text = (0..<row.count).map { index -> String in
                        switch row[index] {
                        case .null: "NULL"
                        case .integer(let value): String(value)
                        case .real(let value): String(value)
                        case .text(let value): value
                        case .blob(let bytes): String(decoding: bytes, as: UTF8.self)
                        }
                    }.joined(separator: "|")
                    rows.append((table, text))
                }
            }
            return rows
        }
    }

    @Test("The app deletes its account: 200, no copy of the email anywhere, the token and the code stop working, a repeat is 200")
    func appDeletes() async throws {
        let harness = try CheckoutHarness()
        let (code, access, accountID) = try await Self.redeemedPurchase(harness)
        #expect(try await harness.count("SELECT COUNT(*) FROM mail_outbox WHERE status = 'pending'") >= 1, "the code email waits in the outbox")

        let deleted = await harness.app.send(.delete, "/api/v1/account", headers: Self.bearer(access))
        #expect(deleted.status == .ok)
        #expect(deleted.jsonObject?["status"] as? String == "deleted")

        let leftovers = try await Self.everyRow(harness).filter { $0.row.lowercased().contains("buyer@example.com") }
        #expect(leftovers.isEmpty, "tables still holding the email: \(leftovers.map(\.table))")
        #expect(try await harness.count("SELECT COUNT(*) FROM mail_outbox WHERE status IN ('pending', 'sending')") == 0)
        #expect(try await harness.count("SELECT COUNT(*) FROM purchases WHERE account_id IS NULL AND erased_at IS NOT NULL") == 1)

        let entitlements = await harness.app.send(.get, "/api/v1/entitlements", headers: Self.bearer(access))
        #expect(entitlements.status == .unauthorized, "every session ended")
        let again = await harness.redeem(code, deviceID: "device-1")
        #expect(again.jsonObject?["status"] as? String == "invalid_code", "the code was revoked")

        let repeated = await harness.app.send(.delete, "/api/v1/account", headers: Self.bearer(access))
        #expect(repeated.status == .ok, "a repeat (the first answer was lost) answers as the first did")
        #expect(repeated.jsonObject?["status"] as? String == "deleted")

        let audit = await harness.app.send(.get, "/admin/v1/audit", headers: TestApp.adminHeaders)
        let entries = try #require(audit.jsonObject?["entries"] as? [[String: Any]])
        let entry = try #require(entries.first { $0["action"] as? String == "account.delete" })
        #expect(entry["target"] as? String == accountID)
        #expect(entry["actor"] as? String == "app")
        #expect(!(entry["details"] as? String ?? "@").contains("@"))
    }

    @Test("Deleting needs a token that signed in: none or an unknown one is 401, and nothing is deleted")
    func deletionNeedsAToken() async throws {
        let harness = try CheckoutHarness()
        _ = try await Self.redeemedPurchase(harness)
        let none = await harness.app.send(.delete, "/api/v1/account", headers: ["X-Api-Key": CheckoutHarness.apiKey])
        #expect(none.status == .unauthorized)
        let unknown = await harness.app.send(.delete, "/api/v1/account", headers: Self.bearer("ses_unknown.secret"))
        #expect(unknown.status == .unauthorized)
        #expect(try await harness.count("SELECT COUNT(*) FROM accounts WHERE deleted_at IS NOT NULL") == 0)
    }

    @Test("A Stripe notification for a deleted account's purchase still updates it, and brings back no email")
    func notificationsStillApply() async throws {
        let harness = try CheckoutHarness()
        let (_, access, _) = try await Self.redeemedPurchase(harness)
        #expect(await harness.app.send(.delete, "/api/v1/account", headers: Self.bearer(access)).status == .ok)
        let subscription = try await harness.app.app.database.read { connection in
            try connection.queryOne("SELECT external_id FROM purchases")?.string("external_id")
        }
        let id = try #require(subscription)
        harness.clock.advance(100)
        let invoice = try #require(harness.stripe.invoicePaidObject(subscriptionID: id, email: "buyer@example.com"))
        #expect(await harness.webhook("invoice.paid", object: invoice, created: harness.clock.now).status == .ok)
        harness.clock.advance(100)
        _ = try harness.stripe.updateSubscription(id: id, status: "canceled")
        let canceled = try #require(harness.stripe.subscriptionObject(id: id))
        #expect(await harness.webhook("customer.subscription.deleted", object: canceled, created: harness.clock.now).status == .ok)
        #expect(try await harness.count("SELECT COUNT(*) FROM purchases WHERE status <> 'active'") == 1, "the detached purchase was updated")
        #expect(try await harness.count("SELECT COUNT(*) FROM purchases WHERE purchaser_email IS NOT NULL") == 0)
    }

    @Test("The export holds the account's data and nothing of another buyer's; it is a download")
    func export() async throws {
        let harness = try CheckoutHarness()
        let (_, access, accountID) = try await Self.redeemedPurchase(harness)
        // Another buyer on another app user.
        let other = try await harness.startCheckout("plan=monthly&app_user_id=user-2&email=other%40example.com")
        try harness.pay(other, email: "other@example.com")
        let otherCode = try #require(CheckoutHarness.code(in: await harness.successPage(other)))
        #expect(await harness.redeem(otherCode, appUserID: "user-2").status == .ok)

        let response = await harness.app.send(.get, "/api/v1/account/export", headers: Self.bearer(access))
        #expect(response.status == .ok)
        #expect(response.headers["Content-Disposition"]?.hasPrefix("attachment;") == true)
        let document = try #require(response.jsonObject)
        let account = try #require(document["account"] as? [String: Any])
        #expect(account["id"] as? String == accountID)
        #expect((document["app_users"] as? [[String: Any]])?.map { $0["app_user_id"] as? String } == ["user-1"])
        #expect((document["devices"] as? [[String: Any]])?.map { $0["device_id"] as? String } == ["device-1"])
        let purchases = try #require(document["purchases"] as? [[String: Any]])
        #expect(purchases.count == 1)
        #expect(purchases.first?["purchaser_email"] as? String == "buyer@example.com")
        #expect((document["entitlements"] as? [[String: Any]])?.first?["id"] as? String == "premium")
        #expect((document["codes"] as? [[String: Any]])?.count == 1)
        #expect((document["mail"] as? [[String: Any]])?.isEmpty == false)
        let text = response.text
        #expect(!text.contains("other@example.com") && !text.contains("user-2"), "nothing of the other buyer")
        // The shape people download: keys sorted at every depth, two spaces a level, `"key": value`.
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "{" && lines.last == "}")
        func keys(indent: Int, from start: Int = 0) -> [String] {
            let prefix = String(repeating: " ", count: indent) + "\""
            var found: [String] = []
            for line in lines[start...] {
                if line.hasPrefix(prefix) { found.append(String(line.dropFirst(prefix.count).prefix { $0 != "\"" })) }
                if found.count > 0, line.count - line.drop(while: { $0 == " " }).count < indent { break }
            }
            return found
        }
        #expect(keys(indent: 2) == ["account", "app_users", "audit", "codes", "devices", "entitlements", "exported_at", "mail", "purchases"])
        #expect(keys(indent: 4, from: 1) == ["created_at", "email", "email_verified", "has_password", "id", "obfuscated_account_id", "username"])
        #expect(lines.contains(#"    "email_verified": true,"#) || lines.contains(#"    "email_verified": false,"#), "booleans stay booleans")
        #expect(lines.contains("  \"app_users\": [") && lines.contains("  ],"))
        #expect(!text.contains(access), "no token")

        #expect(await harness.app.send(.get, "/api/v1/account/export", headers: ["X-Api-Key": CheckoutHarness.apiKey]).status == .unauthorized)
    }

    @Test("An operator deletes by account id: 200, audited under the admin; an unknown id is 404; no token is 401")
    func operatorDeletes() async throws {
        let harness = try CheckoutHarness()
        let (_, access, accountID) = try await Self.redeemedPurchase(harness)
        #expect(await harness.app.send(.delete, "/admin/v1/accounts/\(accountID)").status == .unauthorized)
        let deleted = await harness.app.send(.delete, "/admin/v1/accounts/\(accountID)", headers: TestApp.adminHeaders)
        #expect(deleted.status == .ok)
        #expect(deleted.jsonObject?["account_id"] as? String == accountID)
        #expect(await harness.app.send(.delete, "/admin/v1/accounts/\(accountID)", headers: TestApp.adminHeaders).status == .ok)
        #expect(await harness.app.send(.delete, "/admin/v1/accounts/acc_unknown", headers: TestApp.adminHeaders).status == .notFound)
        #expect(await harness.app.send(.get, "/api/v1/entitlements", headers: Self.bearer(access)).status == .unauthorized)
        let accounts = await harness.app.send(.get, "/admin/v1/accounts?email=buyer%40example.com", headers: TestApp.adminHeaders)
        #expect((accounts.jsonObject?["accounts"] as? [Any])?.isEmpty == true, "no account is found by the erased address")
    }
}
