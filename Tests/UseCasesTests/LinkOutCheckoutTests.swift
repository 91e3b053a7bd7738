import Domain
import Foundation
import Testing
import TestSupport
import UseCases

/// What `/checkout/start` accepts from an app that links out, without HTTP or Stripe.
@Suite("Link-out checkout: storefront, programme and token")
struct LinkOutCheckoutTests {
    static let check = LinkOutCheckout(
        policy: LinkOutPolicy(rules: [
            .init(platform: .ios, storefronts: ["USA"], program: "us_link", tokenRequired: false, reporting: nil),
            .init(platform: .ios, storefronts: ["DEU"], program: "apple_external_purchase", tokenRequired: true, reporting: .apple),
            .init(platform: .android, storefronts: ["USA"], program: "google_external_links", tokenRequired: true, reporting: .google)
        ]),
        app: .init(bundleID: "com.example.app", appAppleID: 1_234_567_890))

    static func request(_ platform: String?, _ storefront: String?, apple: String? = nil, google: String? = nil) -> LinkOutCheckout.Request {
        .init(platform: platform, storefront: storefront, externalPurchaseToken: apple, externalTransactionToken: google)
    }

    static func refusal(_ request: LinkOutCheckout.Request) -> String? {
        do {
            _ = try check.check(request)
            return nil
        } catch let error as UseCaseError {
            return error.kind == .badRequest ? error.message : "not a 400: \(error)"
        } catch {
            return "\(error)"
        }
    }

    @Test("A browser checkout sends nothing and needs nothing; the US storefront on iOS needs no token and keeps none")
    func noToken() throws {
        #expect(try Self.check.check(Self.request(nil, nil)) == nil)
        #expect(try Self.check.check(Self.request("ios", "USA")) == nil)
        #expect(try Self.check.check(Self.request("ios", "usa", apple: FakeExternalPurchaseToken.make())) == nil, "us_link reports nothing")
    }

    @Test("A programme's token is kept with what the reports need: Apple's externalPurchaseId, the programme and storefront")
    func kept() throws {
        let apple = FakeExternalPurchaseToken.make(externalPurchaseID: "SANDBOX_0001")
        let kept = try #require(try Self.check.check(Self.request("ios", "DEU", apple: apple)))
        #expect(kept == .init(token: apple, reporting: .apple, externalID: "SANDBOX_0001", program: "apple_external_purchase", storefront: "DEU"))
        let google = try #require(try Self.check.check(Self.request("android", "USA", google: "ABCdef0123-_token")))
        #expect(google.reporting == .google && google.program == "google_external_links" && google.externalID == nil)
    }

    @Test("Refused with a 400 naming why: no platform, a storefront without a programme, a missing token, another platform's or another app's token")
    func refused() {
        #expect(Self.refusal(Self.request(nil, nil, apple: FakeExternalPurchaseToken.make()))?.contains("platform") == true)
        #expect(Self.refusal(Self.request("ios", "FRA"))?.contains("may not link out") == true)
        #expect(Self.refusal(Self.request("ios", "DEU"))?.contains("external_purchase_token") == true)
        #expect(Self.refusal(Self.request("android", "USA"))?.contains("external_transaction_token") == true)
        #expect(Self.refusal(Self.request("android", "USA", apple: FakeExternalPurchaseToken.make()))?.contains("Apple's") == true)
        #expect(Self.refusal(Self.request("ios", "DEU", google: "ABC"))?.contains("Google Play's") == true)
        let otherApp = FakeExternalPurchaseToken.make(bundleID: "com.other.app")
        #expect(Self.refusal(Self.request("ios", "DEU", apple: otherApp))?.contains("com.other.app") == true)
        let otherAppID = FakeExternalPurchaseToken.make(appAppleID: 42)
        #expect(Self.refusal(Self.request("ios", "DEU", apple: otherAppID))?.contains("not this app's token") == true)
        #expect(Self.refusal(Self.request("ios", "DEU", apple: "not base64 !"))?.contains("not this app's token") == true)
        #expect(Self.refusal(Self.request("macos", "DEU")) != nil)
    }
}
