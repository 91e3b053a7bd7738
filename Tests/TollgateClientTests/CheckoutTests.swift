import Foundation
import Testing
import TollgateClient

extension LiveServiceTests {
    @Suite("Web checkout from the app: the start URL and polling")
    struct CheckoutTests {
        @Test("The start URL carries plan, app user, context id, email, ply_context and custom parameters, and the service takes it")
        func startURL() async throws {
            try await LiveTollgate.run { live in
                let contextID = UUID()
                let request = CheckoutRequest(
                    product: .plan("monthly"), appUserID: "user-3", checkoutContextID: contextID, email: "a+b@example.com",
                    paywallContext: .init(presentationID: "pres_1", placementID: "onboarding"),
                    parameters: ["utm_source": "newsletter", "campaign_name": "spring sale"])
                let url = try await live.client().checkoutURL(for: request)
                #expect(url.path == "/checkout/start")
                let query = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery)
                #expect(query.contains("email=a%2Bb%40example.com"), "a + must not reach the server as a space")
                let items = Dictionary(
                    uniqueKeysWithValues: (URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []).map {
                        ($0.name, $0.value ?? "")
                    })
                #expect(items["plan"] == "monthly" && items["app_user_id"] == "user-3" && items["campaign_name"] == "spring sale")
                #expect(items["checkout_context_id"] == contextID.uuidString.lowercased())
                let ply = try #require(Data(base64Encoded: items["ply_context"] ?? ""))
                #expect(String(decoding: ply, as: UTF8.self) == #"{"placement_id":"onboarding","presentation_id":"pres_1"}"#)

                let sessionID = try await live.startCheckout(url.path + "?" + query)
                let session = try #require(live.stripe.session(id: sessionID))
                #expect(session.clientReferenceID == "user-3")
                #expect(session.metadata["checkout_context_id"] == contextID.uuidString.lowercased())
                #expect(session.metadata["utm_source"] == "newsletter" && session.metadata["campaign_name"] == "spring sale")
                #expect(session.metadata["ply_placement_id"] == "onboarding")
                let byPrice = try await live.client().checkoutURL(for: CheckoutRequest(product: .priceID("price_monthly")))
                #expect(byPrice.query?.hasPrefix("price_id=price_monthly&checkout_context_id=") == true)
            }
        }

        @Test("Eligibility: the US storefront may link out without a token, another may not; the start URL carries platform, storefront and token")
        func eligibility() async throws {
            try await LiveTollgate.run { live in
                let client = live.client()
                let us = try await client.checkoutEligibility(storefront: "USA")
                #expect(us.linkOut && us.program == "us_link" && !us.tokenRequired)
                #expect(us.checkoutURL?.absoluteString.hasSuffix("/checkout/start?platform=ios&storefront=USA") == true)
                let germany = try await client.checkoutEligibility(storefront: "DEU")
                #expect(!germany.linkOut && germany.program == nil && germany.checkoutURL == nil)
                await #expect(throws: TollgateClientError.self) { try await client.checkoutEligibility(storefront: "Germany") }

                let request = CheckoutRequest(
                    product: .plan("monthly"), appUserID: "user-7", linkOut: .init(platform: "ios", storefront: "USA"))
                let url = try await client.checkoutURL(for: request)
                let items = Dictionary(
                    uniqueKeysWithValues: (URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []).map {
                        ($0.name, $0.value ?? "")
                    })
                #expect(items["platform"] == "ios" && items["storefront"] == "USA" && items["external_purchase_token"] == nil)
                let sessionID = try await live.startCheckout(url.path + "?" + (url.query ?? ""))
                #expect(live.stripe.session(id: sessionID)?.clientReferenceID == "user-7")
            }
        }

        @Test("Polling: an unseen id is pending; after payment the poll completes with the redemption result")
        func pendingThenComplete() async throws {
            try await LiveTollgate.run { live in
                let storage = InMemoryTokenStorage()
                let client = live.client(storage: storage)
                let request = CheckoutRequest(product: .plan("monthly"), appUserID: "user-5", email: "buyer@example.com")
                // Not started yet: pending (API.md), even where the current server still answers 404.
                guard case .pending = try await client.checkoutStatus(checkoutContextID: request.checkoutContextID, appUserID: "user-5") else {
                    Issue.record("an unseen checkout must be pending")
                    return
                }
                let url = try await client.checkoutURL(for: request)
                let sessionID = try await live.startCheckout(url.path + "?" + (url.query ?? ""))
                async let waited = client.waitForCheckout(
                    checkoutContextID: request.checkoutContextID, appUserID: "user-5", interval: .milliseconds(50), timeout: .seconds(30))
                try await Task.sleep(for: .milliseconds(200))
                _ = try await live.payAndLand(sessionID)
                let status = try await waited
                guard case .complete(let result?) = status, case .success(let success) = result else {
                    Issue.record("expected complete with a success result, got \(status)")
                    return
                }
                #expect(success.info.entitlements.first?.id == "premium" && success.info.entitlements.first?.active == true)
                #expect(success.info.purchaserInfo.appUserID == "user-5")
                #expect(try await client.entitlements(appUserID: "user-5").isActive("premium"))
                // The checkout URL and the poll carried this install's secret: the poll signs the app in.
                let session = try #require(success.session)
                #expect(await storage.load() == session, "a session in the poll result is stored")
                #expect(url.query?.contains("app_user_secret=\(try await client.installSecret())") == true)
            }
        }

        @Test("Polling gives up after the timeout and answers pending")
        func timeout() async throws {
            try await LiveTollgate.run { live in
                let started = ContinuousClock.now
                let status = try await live.client().waitForCheckout(
                    checkoutContextID: UUID(), appUserID: "user-6", interval: .milliseconds(50), timeout: .milliseconds(400))
                guard case .pending = status else {
                    Issue.record("expected pending, got \(status)")
                    return
                }
                let elapsed = ContinuousClock.now - started
                #expect(elapsed >= .milliseconds(300) && elapsed < .seconds(30), "gave up near the 0.4 s timeout (loose: the machine is shared)")
            }
        }
    }
}

extension LiveServiceTests {
    @Suite("The install secret")
    struct InstallSecretTests {
        @Test("Made once per install (43 base64url characters, 256 bits), kept in the storage, the same across clients sharing it, kept at sign-out")
        func madeOnceAndKept() async throws {
            try await LiveTollgate.run { live in
                let storage = InMemoryTokenStorage()
                let secret = try await live.client(storage: storage).installSecret()
                #expect(secret.count == 43 && secret.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
                #expect(await storage.loadInstallSecret() == secret)
                let again = live.client(storage: storage)
                #expect(try await again.installSecret() == secret)
                try await again.signOut()
                #expect(try await again.installSecret() == secret, "signing out keeps the install's secret")
                #expect(try await live.client().installSecret() != secret, "another install makes its own")
            }
        }

        @Test("Another install naming the same app user without its secret gets no session from the poll")
        func anotherInstallGetsNoSession() async throws {
            try await LiveTollgate.run { live in
                let client = live.client()
                let request = CheckoutRequest(product: .plan("monthly"), appUserID: "user-7", email: "buyer@example.com")
                let url = try await client.checkoutURL(for: request)
                let sessionID = try await live.startCheckout(url.path + "?" + (url.query ?? ""))
                _ = try await live.payAndLand(sessionID)
                let stranger = live.client()
                let status = try await stranger.checkoutStatus(checkoutContextID: request.checkoutContextID, appUserID: "user-7")
                guard case .complete(let result?) = status, case .sessionRequired(let entitlements) = result else {
                    Issue.record("expected complete without a session, got \(status)")
                    return
                }
                #expect(entitlements.first?.id == "premium")
                #expect(try await stranger.currentSession() == nil)
            }
        }
    }
}
