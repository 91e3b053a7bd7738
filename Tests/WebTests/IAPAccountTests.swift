import Domain
import Foundation
import HTTPCore
import HTTPRouting
import Testing
import TestSupport

@testable import Web
@testable import App

@Suite("Accounts from in-app purchases (the four-way table)")
struct IAPAccountTests {
    enum Store: String, CaseIterable, Sendable { case apple, google }

    /// Posts the purchase of `reference` to `/api/v1/iap/{store}`.
    static func post(
        _ harness: StoresHarness, _ store: Store, reference: String, email: String? = nil, bearer: String? = nil,
        ownerHint: String? = nil
    ) async throws -> HTTPResponse {
        var body: [String: Any] = [:]
        switch store {
        case .apple:
            let transaction = harness.transaction(
                reference, expires: harness.clock.now.addingTimeInterval(30 * 86400),
                signedAt: harness.clock.now, appAccountToken: ownerHint)
            body["subscription_transaction_jws"] = try harness.pki.signer(.valid).signTransaction(transaction)
        case .google:
            harness.google.setSubscription(
                token: reference, state: .active, productID: "pro_monthly",
                expiry: harness.clock.now.addingTimeInterval(30 * 86400), obfuscatedAccountID: ownerHint)
            body["purchase_token"] = reference
            body["sku"] = "pro_monthly"
        }
        if let email { body["customer_details"] = ["email": email] }
        body["conversion_details"] = ["referrer_id": "ref-1"]
        var headers: HTTPHeaders = ["X-Api-Key": StoresHarness.apiKey, "Content-Type": "application/json"]
        if let bearer { headers.set("Authorization", "Bearer \(bearer)") }
        let data = try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])
        return await harness.app.send(.post, "/api/v1/iap/\(store.rawValue)", headers: headers, bytes: Array(data))
    }

    /// Follows a login_url to the account it signs into.
    static func signsInto(_ harness: StoresHarness, _ response: HTTPResponse) async throws -> String? {
        let url = try #require(response.jsonObject?["login_url"] as? String)
        #expect(url.hasPrefix("https://pay.example.com/auth/login?token="))
        let callback = await harness.app.send(.get, String(url.dropFirst("https://pay.example.com".count)))
        guard let location = callback.headers["Location"], let code = location.components(separatedBy: "code=").last else { return nil }
        let body = "grant_type=authorization_code&code=" + code
        let tokens = await harness.app.send(.post, "/auth/token", headers: ["Content-Type": "application/x-www-form-urlencoded"], body: body)
        return tokens.jsonObject?["account_id"] as? String
    }

    static func mails(_ harness: StoresHarness, _ template: String) async throws -> Int {
        try await harness.count("SELECT count(*) FROM mail_outbox WHERE template = '\(template)'")
    }

    @Test("Not signed in, no details: a new account with a generated username and no password (nobody chose one), no mail", arguments: Store.allCases)
    func autoCreated(store: Store) async throws {
        let harness = try await StoresHarness()
        defer { Task { await harness.stop() } }
        let response = try await Self.post(harness, store, reference: "3000000000000001")
        #expect(response.status == .ok, "\(response.text.prefix(300))")
        let json = try #require(response.jsonObject)
        #expect(json["auto_account_created"] as? Bool == true)
        #expect(json["email_confirmation_required"] as? Bool == false)
        #expect(json["is_email_set"] as? Bool == false)
        #expect(json["account_switched"] as? Bool == false)
        #expect(((json["purchase"] as? [String: Any])?["status"] as? String) == "active")
        let accountID = try #require(try await Self.signsInto(harness, response))
        let account = try await harness.app.app.database.read { try AccountRepository.require(id: accountID, on: $0) }
        #expect(account.username?.split(separator: "-").count == 3)
        #expect(!account.hasPassword, "issue 43 item 1: an account whose password no person chose has none")
        #expect(try await harness.count("SELECT count(*) FROM mail_outbox") == 0)
        // The same purchase again signs into the same account; nothing new is created.
        let again = try await Self.post(harness, store, reference: "3000000000000001")
        #expect(again.jsonObject?["auto_account_created"] as? Bool == false)
        #expect(try await Self.signsInto(harness, again) == accountID)
        #expect(try await harness.count("SELECT count(*) FROM accounts") == 1)
    }

    @Test("The SDK's conversion_details is shown with the purchase in the operators' view", arguments: Store.allCases)
    func conversionDetailsInAdminView(store: Store) async throws {
        let harness = try await StoresHarness()
        defer { Task { await harness.stop() } }
        let response = try await Self.post(harness, store, reference: "3000000000000077", email: "attr@example.com")
        #expect(response.status == .ok)
        let listed = await harness.app.send(.get, "/admin/v1/purchases?email=attr@example.com", headers: TestApp.adminHeaders)
        let purchases = try #require(listed.jsonObject?["purchases"] as? [[String: Any]])
        #expect(purchases.count == 1)
        let attribution = try #require(purchases.first?["attribution"] as? [String: Any])
        #expect(attribution["referrer_id"] as? String == "ref-1")
    }

    @Test(
        "Not signed in, with an email: a new unconfirmed account and a confirmation mail — never the existing owner of that email",
        arguments: Store.allCases)
    func newAccountWithEmail(store: Store) async throws {
        let harness = try await StoresHarness()
        defer { Task { await harness.stop() } }
        // Someone else already owns and confirmed this address.
        let existing = try await harness.app.app.database.write { connection -> String in
            let account = try AccountRepository.create(
                email: "dana@example.com", secrets: harness.app.app.essentials.secrets, on: connection, now: harness.clock.now)
            try AccountRepository.confirmEmail("dana@example.com", accountID: account.id, on: connection, now: harness.clock.now)
            return account.id
        }
        let response = try await Self.post(harness, store, reference: "3000000000000002", email: "Dana@example.com")
        let json = try #require(response.jsonObject)
        #expect(json["email_confirmation_required"] as? Bool == true)
        #expect(json["auto_account_created"] as? Bool == false)
        #expect(json["is_email_set"] as? Bool == true)
        let signedInto = try await Self.signsInto(harness, response)
        #expect(signedInto != existing, "claiming an email never signs into the account that owns it")
        #expect(try await Self.mails(harness, "email_confirmation") == 1)
        let attribution = try await harness.app.app.database.read {
            try $0.queryOne("SELECT attribution FROM purchases")?.optionalString("attribution")
        }
        #expect(attribution == #"{"referrer_id":"ref-1"}"#)
    }

    @Test("Not signed in, with an email, and B holds the purchase: login_url for B, B's email updated and mailed", arguments: Store.allCases)
    func ownerGetsEmail(store: Store) async throws {
        let harness = try await StoresHarness()
        defer { Task { await harness.stop() } }
        let first = try await Self.post(harness, store, reference: "3000000000000006")
        let ownerB = try #require(try await Self.signsInto(harness, first))
        let second = try await Self.post(harness, store, reference: "3000000000000006", email: "bea@example.com")
        #expect(second.jsonObject?["email_confirmation_required"] as? Bool == true)
        #expect(second.jsonObject?["auto_account_created"] as? Bool == false)
        #expect(try await Self.signsInto(harness, second) == ownerB)
        let account = try await harness.app.app.database.read { try AccountRepository.require(id: ownerB, on: $0) }
        #expect(account.email == "bea@example.com" && !account.emailVerified)
        #expect(try await Self.mails(harness, "email_confirmation") == 1)
        #expect(try await harness.count("SELECT count(*) FROM accounts") == 1)
    }

    @Test("Signed in: the purchase is linked to A; with an email A's address changes, unconfirmed, with a mail", arguments: Store.allCases)
    func signedIn(store: Store) async throws {
        let harness = try await StoresHarness()
        defer { Task { await harness.stop() } }
        let (accountID, token) = try await harness.signedInAccount()
        let plain = try await Self.post(harness, store, reference: "3000000000000003", bearer: token)
        #expect(plain.jsonObject?["account_switched"] as? Bool == false)
        #expect(try await Self.signsInto(harness, plain) == accountID)
        let withEmail = try await Self.post(harness, store, reference: "3000000000000003", email: "new@example.com", bearer: token)
        #expect(withEmail.jsonObject?["email_confirmation_required"] as? Bool == true)
        let account = try await harness.app.app.database.read { try AccountRepository.require(id: accountID, on: $0) }
        #expect(account.email == "new@example.com" && !account.emailVerified)
        #expect(try await Self.mails(harness, "email_confirmation") == 1)
        let purchase = try await harness.app.app.database.read { try PurchaseRepository.forAccount(accountID, on: $0) }
        #expect(purchase.count == 1)
    }

    @Test("Signed in as A while B holds the purchase: switch, transfer or reject", arguments: Store.allCases, ["switch", "transfer", "reject"])
    func otherOwner(store: Store, policy: String) async throws {
        let harness = try await StoresHarness(extra: ["redemption": ["on_other_user": policy]])
        defer { Task { await harness.stop() } }
        let first = try await Self.post(harness, store, reference: "3000000000000004")
        let ownerB = try #require(try await Self.signsInto(harness, first))
        let (accountA, tokenA) = try await harness.signedInAccount()
        let response = try await Self.post(harness, store, reference: "3000000000000004", bearer: tokenA)
        switch policy {
        case "switch":
            #expect(response.jsonObject?["account_switched"] as? Bool == true)
            #expect(try await Self.signsInto(harness, response) == ownerB)
        case "transfer":
            #expect(response.jsonObject?["account_switched"] as? Bool == false)
            #expect(try await Self.signsInto(harness, response) == accountA)
            let held = try await harness.app.app.database.read { try PurchaseRepository.forAccount(accountA, on: $0).count }
            #expect(held == 1)
        default:
            #expect(response.status == .conflict)
            #expect(response.errorCode == "purchase_belongs_to_other_user")
        }
    }

    @Test("The store's owner hint (appAccountToken / obfuscatedExternalAccountId) names the owner", arguments: Store.allCases)
    func ownerHint(store: Store) async throws {
        let harness = try await StoresHarness()
        defer { Task { await harness.stop() } }
        let (accountID, _) = try await harness.signedInAccount()
        let hint = try await harness.obfuscatedID(accountID)
        let response = try await Self.post(harness, store, reference: "3000000000000005", ownerHint: hint)
        #expect(response.jsonObject?["auto_account_created"] as? Bool == false)
        #expect(try await Self.signsInto(harness, response) == accountID)
    }

    @Test("Breaking 'exactly one of' is 400; a purchase the store rejects is 422; nothing is written")
    func badInputs() async throws {
        let harness = try await StoresHarness()
        defer { Task { await harness.stop() } }
        let headers: HTTPHeaders = ["X-Api-Key": StoresHarness.apiKey, "Content-Type": "application/json"]
        let none = await harness.app.send(.post, "/api/v1/iap/apple", headers: headers, body: "{}")
        #expect(none.status == .badRequest)
        let two = await harness.app.send(
            .post, "/api/v1/iap/apple", headers: headers, body: #"{"transaction_id":"1","subscription_transaction_jws":"a.b.c"}"#)
        #expect(two.status == .badRequest)
        let three = await harness.app.send(
            .post, "/api/v1/iap/apple", headers: headers,
            body: #"{"transaction_id":"1","app_receipt_base64":"eA==","subscription_transaction_jws":"a.b.c"}"#)
        #expect(three.status == .badRequest)
        let forged = await harness.app.send(.post, "/api/v1/iap/apple", headers: headers, body: #"{"subscription_transaction_jws":"a.b.c"}"#)
        #expect(forged.status == .unprocessableContent)
        #expect(forged.errorCode == "invalid_receipt")
        let unknown = await harness.app.send(.post, "/api/v1/iap/google", headers: headers, body: #"{"purchase_token":"nope","sku":"pro_monthly"}"#)
        #expect(unknown.status == .unprocessableContent)
        #expect(try await harness.count("SELECT count(*) FROM accounts") == 0)
        #expect(try await harness.count("SELECT count(*) FROM purchases") == 0)
    }
}
