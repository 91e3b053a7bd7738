import Crypto
import Domain
import Foundation
import HTTPCore
import HTTPRouting
import Testing
import TestSupport

@testable import App
@testable import Web

/// Issue 40's rules through the real router: install secrets on redeem, store claims that prove
/// only the purchase (a family member's transaction), PKCE on the login link of an app that sent
/// a challenge, and `Idempotency-Key` replays scoped to the caller.
@Suite("Who may act for an account over HTTP")
struct WhoMayActHTTPTests {
    static let secret = "buyer-install-secret-0123456789abcdef"

    @Test("A replayed idempotent answer: the same key and body from a caller without the first call's secret carries no session")
    func replayedIdempotentAnswer() async throws {
        let harness = try CheckoutHarness()
        let id = try await harness.startCheckout("plan=monthly&email=buyer%40example.com")
        try harness.pay(id, email: "buyer@example.com")
        let page = await harness.successPage(id)
        let code = try #require(CheckoutHarness.code(in: page))
        let first = await harness.redeem(code, appUserID: "buyer", headers: ["Idempotency-Key": "redeem-1", "X-App-User-Secret": Self.secret])
        #expect(first.jsonObject?["session"] != nil, "\(first.text.prefix(300))")
        let replay = await harness.redeem(code, appUserID: "buyer", headers: ["Idempotency-Key": "redeem-1"])
        #expect(replay.headers["Idempotent-Replayed"] == nil)
        #expect(replay.jsonObject?["session"] == nil && replay.jsonObject?["secret_mismatch"] as? Bool == true, "\(replay.text.prefix(300))")
        // The buyer's own repeat is replayed.
        let again = await harness.redeem(code, appUserID: "buyer", headers: ["Idempotency-Key": "redeem-1", "X-App-User-Secret": Self.secret])
        #expect(again.headers["Idempotent-Replayed"] == "true")
    }

    @Test("app_user_secret must be 22–128 characters of [A-Za-z0-9_-], else 400")
    func secretShape() async throws {
        let harness = try CheckoutHarness()
        let short = await harness.redeem("AAAA-BBBB-CCCC-DDDD", appUserID: "u", headers: ["X-App-User-Secret": "too-short"])
        #expect(short.status == .badRequest)
        let start = await harness.app.send(.get, "/checkout/start?plan=monthly&app_user_id=u&app_user_secret=bad%20secret%20with%20spaces!!")
        #expect(start.status == .badRequest)
        let poll = await harness.app.send(
            .get, "/api/v1/checkout/6a1f0c1e-2b3d-4c5e-8f70-9a8b7c6d5e4f?app_user_id=u&app_user_secret=x",
            headers: ["X-Api-Key": CheckoutHarness.apiKey])
        #expect(poll.status == .badRequest)
        // A well-formed secret in the body and another in the header: the body's, which travels with
        // its app user, is the one checked; no 400 (a secret proves only by matching a bound hash).
        let both = await harness.app.send(
            .post, "/api/v1/redeem",
            headers: [
                "X-Api-Key": CheckoutHarness.apiKey, "Content-Type": "application/json", "X-App-User-Secret": String(repeating: "h", count: 32)
            ],
            body: #"{"code":"AAAA-BBBB-CCCC-DDDD","app_user_id":"u2","app_user_secret":"\#(String(repeating: "b", count: 32))"}"#)
        #expect(both.status == .ok && both.jsonObject?["status"] as? String == "invalid_code", "\(both.status) \(both.text.prefix(200))")
        // A malformed header is refused whatever the body carries.
        let badHeader = await harness.app.send(
            .post, "/api/v1/redeem", headers: ["X-Api-Key": CheckoutHarness.apiKey, "Content-Type": "application/json", "X-App-User-Secret": "short"],
            body: #"{"code":"AAAA-BBBB-CCCC-DDDD","app_user_id":"u2","app_user_secret":"\#(String(repeating: "b", count: 32))"}"#)
        #expect(badHeader.status == .badRequest)
    }

    @Test("A family member's transaction: a FAMILY_SHARED signed transaction or a bare transaction_id gets no login_url for the buyer's account")
    func familyMembersTransaction() async throws {
        let harness = try await StoresHarness()
        defer { Task { await harness.stop() } }
        let headers: HTTPHeaders = ["X-Api-Key": StoresHarness.apiKey, "Content-Type": "application/json"]
        // The buyer claims with what their device holds.
        let bought = harness.transaction("5000000000000001", expires: harness.clock.now.addingTimeInterval(86400), signedAt: harness.clock.now)
        let jws = try harness.pki.signer(.valid).signTransaction(bought)
        let buyer = await harness.app.send(.post, "/api/v1/iap/apple", headers: headers, body: #"{"subscription_transaction_jws":"\#(jws)"}"#)
        let buyerAccount = try #require(try await IAPAccountTests.signsInto(harness, buyer))
        // A family member's device holds the same purchase, shared.
        var shared = bought
        shared.inAppOwnershipType = "FAMILY_SHARED"
        let sharedJWS = try harness.pki.signer(.valid).signTransaction(shared)
        let family = await harness.app.send(.post, "/api/v1/iap/apple", headers: headers, body: #"{"subscription_transaction_jws":"\#(sharedJWS)"}"#)
        #expect(family.status == .ok, "\(family.text.prefix(300))")
        #expect(family.jsonObject?["login_url"] == nil && family.jsonObject?["session_required"] as? Bool == true)
        #expect(family.jsonObject?["extra"] == nil, "the buyer's account is not named")
        #expect(try await harness.purchase(.appStore, "5000000000000001")?.accountID == buyerAccount, "the buyer's account is not touched")
    }

    @Test("PKCE: a login_url made for a call that sent code_challenge needs the verifier at /auth/token, whatever the link's query says")
    func pkceRequiredWhenChallengeSent() async throws {
        let harness = try await StoresHarness()
        defer { Task { await harness.stop() } }
        let verifier = "verifier-" + String(repeating: "v", count: 50)
        let challenge = Base64URL.encode(try SHA256.hash(Array(verifier.utf8)))
        let transaction = harness.transaction("5100000000000001", expires: harness.clock.now.addingTimeInterval(86400), signedAt: harness.clock.now)
        let jws = try harness.pki.signer(.valid).signTransaction(transaction)
        let claim = await harness.app.send(
            .post, "/api/v1/iap/apple", headers: ["X-Api-Key": StoresHarness.apiKey, "Content-Type": "application/json"],
            body: #"{"subscription_transaction_jws":"\#(jws)","code_challenge":"\#(challenge)"}"#)
        let url = try #require(claim.jsonObject?["login_url"] as? String)
        // Someone who copied the link opens it without a challenge of their own.
        let callback = await harness.app.send(.get, String(url.dropFirst("https://pay.example.com".count)))
        let code = try #require(callback.headers["Location"]?.components(separatedBy: "code=").last)
        let stolen = await harness.app.send(
            .post, "/auth/token", headers: ["Content-Type": "application/x-www-form-urlencoded"], body: "grant_type=authorization_code&code=" + code)
        #expect(stolen.status == .badRequest, "\(stolen.text.prefix(200))")
        #expect(stolen.jsonObject?["access_token"] == nil)
    }
}

extension WhoMayActHTTPTests {
    @Test("POST /admin/v1/accounts/{id}/forget-secrets unbinds, behind the admin token, with a reason")
    func forgetSecretsRoute() async throws {
        let harness = try CheckoutHarness()
        let now = Date()
        let accountID = try await harness.app.app.database.write { [secrets = harness.app.app.essentials.secrets] connection in
            let account = try AccountRepository.findOrCreate(appUserID: "phone-user", secrets: secrets, on: connection, now: now).0
            try AppUserSecretRepository.bind(InstallSecret(Self.secret)!, appUserID: "phone-user", deviceID: nil, on: connection, now: now)
            return account.id
        }
        var headers = TestApp.adminHeaders
        headers.set("Content-Type", "application/json")
        let path = "/admin/v1/accounts/\(accountID)/forget-secrets"
        #expect(
            await harness.app.send(.post, path, headers: ["Content-Type": "application/json"], body: #"{"reason":"lost"}"#).status == .unauthorized)
        #expect(await harness.app.send(.post, path, headers: headers, body: #"{"reason":""}"#).status == .badRequest)
        let done = await harness.app.send(.post, path, headers: headers, body: #"{"reason":"lost phone"}"#)
        #expect(done.status == .ok && done.jsonObject?["secrets_unbound"] as? Int == 1, "\(done.text.prefix(200))")
        #expect(
            await harness.app.send(.post, "/admin/v1/accounts/acc_nobody/forget-secrets", headers: headers, body: #"{"reason":"x"}"#).status
                == .notFound)
    }
}

extension WhoMayActHTTPTests {
    @Test("The install secret given to /checkout/start is dropped: never in Stripe's metadata or the redirect; the paid checkout binds it")
    func checkoutStartDropsTheSecret() async throws {
        let harness = try CheckoutHarness(redemption: ["mode": "redirect"])
        let id = try await harness.startCheckout("plan=monthly&app_user_id=u-redirect&app_user_secret=\(Self.secret)&placement=paywall_a")
        let metadata = try #require(harness.stripe.session(id: id)?.metadata)
        #expect(!metadata.values.contains { $0.contains(Self.secret) } && metadata["app_user_secret"] == nil)
        try harness.pay(id, email: "redirect@example.com")
        let landing = await harness.successPage(id)
        let location = try #require(landing.headers["Location"])
        #expect(!location.contains(Self.secret) && location.contains("placement=paywall_a"))
        let bound = try await harness.app.app.database.read { try AppUserSecretRepository.hashes(appUserID: "u-redirect", on: $0) }
        #expect(bound == [try #require(InstallSecret(Self.secret)).hash], "the paid checkout created the app user and bound its secret")
        #expect(try await harness.count("SELECT COUNT(*) FROM checkouts WHERE app_user_secret_hash LIKE '%\(Self.secret)%'") == 0)
    }
}

extension WhoMayActHTTPTests {
    @Test(
        "A code whose account holds more than its purchase: a stranger's redeem is success with the entitlements, session_required, no account, no email"
    )
    func strangerRedeemsAsGuest() async throws {
        let harness = try CheckoutHarness()
        let first = try await RedeemFlowTests.paidCode(harness)
        let second = try await RedeemFlowTests.paidCode(harness)
        let buyer: HTTPHeaders = ["X-App-User-Secret": Self.secret]
        #expect(await harness.redeem(first, appUserID: "buyer", headers: buyer).jsonObject?["session"] != nil)
        #expect(await harness.redeem(second, appUserID: "buyer", headers: buyer).jsonObject?["session"] != nil)
        let stranger = await harness.redeem(first, appUserID: "stranger", headers: ["X-App-User-Secret": "stranger-install-secret-0123456789"])
        let json = try #require(stranger.jsonObject)
        #expect(json["status"] as? String == "success" && json["session_required"] as? Bool == true)
        #expect(json["session"] == nil && json["account"] == nil && json["account_switched"] as? Bool == false)
        let purchaser = (json["redemption_info"] as? [String: Any])?["purchaser_info"] as? [String: Any]
        #expect(purchaser?["email"] is NSNull && purchaser?["stripe_customer_id"] is NSNull)
        #expect(!stranger.text.contains("buyer@example.com"))
        let entitlements = await harness.app.send(
            .get, "/api/v1/entitlements?app_user_id=stranger",
            headers: ["X-Api-Key": CheckoutHarness.apiKey, "X-App-User-Secret": "stranger-install-secret-0123456789"])
        let list = try #require(entitlements.jsonObject?["entitlements"] as? [[String: Any]])
        #expect(list.first?["id"] as? String == "premium" && list.first?["active"] as? Bool == true)
    }
}
