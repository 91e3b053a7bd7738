import Crypto
import Foundation
import Testing
import TollgateClient

extension LiveServiceTests {
    @Suite("Store purchases: a Google Play claim and the PKCE sign-in that follows")
    struct StoreClaimTests {
        @Test("claimPlay makes an account from the purchase; its login_url with PKCE ends in a callback the client signs in with")
        func playClaimAndSignIn() async throws {
            try await LiveTollgate.run { live in
                let expiry = live.clock.now.addingTimeInterval(30 * 86400)
                live.google.setSubscription(token: "play-token-client-1", state: .active, productID: "pro_monthly", expiry: expiry)
                let storage = InMemoryTokenStorage()
                let client = live.client(storage: storage)
                let verifier = "client-test-verifier-0123456789-abcdefghijklmnopqrstuvwxyz"
                let challenge = Base64URL.encode(try SHA256.hash(Array(verifier.utf8)))
                // The app user and this install's secret go along (a new app user is bound to this install),
                // and the challenge at the claim: the login link then needs the verifier.
                let claim = try await client.claimPlay(
                    token: "play-token-client-1", sku: "pro_monthly",
                    details: StoreClaimDetails(referrerID: "ref-9", appUserID: "play-user", codeChallenge: challenge))
                #expect(!claim.sessionRequired && !claim.secretMismatch)
                #expect(claim.autoAccountCreated && !claim.emailConfirmationRequired && !claim.isEmailSet && !claim.accountSwitched)
                #expect(claim.purchase.platform == "play_store" && claim.purchase.productID == "pro_monthly" && claim.purchase.status == "active")
                #expect(claim.obfuscatedAccountID?.isEmpty == false)
                #expect(await storage.load() == nil, "a claim alone signs nobody in")

                let login = try #require(claim.loginURL)
                #expect(login.host == "pay.example.com" && login.path == "/auth/login")
                // The browser's part: the login page redirects into the app.
                let page = await live.send(.get, login.path + "?" + (login.query ?? ""))
                let callback = try #require(page.headers["Location"].flatMap(URL.init(string:)))
                guard case .signIn(let code)? = client.link(from: callback) else {
                    Issue.record("not a sign-in callback: \(callback)")
                    return
                }
                let tokens = try await client.signIn(authorizationCode: code, codeVerifier: verifier)
                #expect(await storage.load() == tokens)
                let entitlements = try await client.entitlements()
                #expect(entitlements.accountID == tokens.accountID)
                #expect(entitlements.isActive("premium") && entitlements.entitlements.first?.source == "play_store")
                let reused = await #expect(throws: TollgateClientError.self) {
                    try await client.signIn(authorizationCode: code, codeVerifier: verifier)
                }
                #expect(reused?.code == .invalidGrant)
            }
        }

        @Test("Every claim carries a PKCE challenge: the client that claimed signs in with its own verifier; a copied link signs no one else in")
        func automaticPKCE() async throws {
            try await LiveTollgate.run { live in
                let expiry = live.clock.now.addingTimeInterval(30 * 86400)
                live.google.setSubscription(token: "play-token-client-2", state: .active, productID: "pro_monthly", expiry: expiry)
                let client = live.client()
                let claim = try await client.claimPlay(token: "play-token-client-2", sku: "pro_monthly")
                // Someone who copied the link opens it and tries the code with another client.
                let login = try #require(claim.loginURL)
                let page = await live.send(.get, login.path + "?" + (login.query ?? ""))
                let callback = try #require(page.headers["Location"].flatMap(URL.init(string:)))
                guard case .signIn(let code)? = client.link(from: callback) else {
                    Issue.record("not a sign-in callback: \(callback)")
                    return
                }
                let thief = await #expect(throws: TollgateClientError.self) { try await live.client().signIn(authorizationCode: code) }
                #expect(thief?.code == .invalidGrant)
                // The claiming client's next link signs in with the verifier it kept.
                let again = try await client.claimPlay(token: "play-token-client-2", sku: "pro_monthly")
                let second = try #require(again.loginURL)
                let page2 = await live.send(.get, second.path + "?" + (second.query ?? ""))
                guard case .signIn(let code2)? = client.link(from: try #require(page2.headers["Location"].flatMap(URL.init(string:)))) else {
                    Issue.record("no callback")
                    return
                }
                let tokens = try await client.signIn(authorizationCode: code2)
                #expect(!tokens.accessToken.isEmpty)
            }
        }

        @Test("A purchase Google does not know is a typed, non-retryable invalid_receipt")
        func unknownPurchase() async throws {
            try await LiveTollgate.run { live in
                let error = await #expect(throws: TollgateClientError.self) {
                    try await live.client().claimPlay(token: "play-token-nobody-issued", sku: "pro_monthly")
                }
                #expect(error?.status == 422 && error?.code == .invalidReceipt && error?.retryable == false)
            }
        }
    }
}
