import Domain
import Testing
import UseCases

/// Which storefronts may link out to web checkout, without HTTP.
@Suite("Checkout eligibility (link-out rules)")
struct CheckoutEligibilityTests {
    static let policy = LinkOutPolicy(rules: [
        .init(platform: .ios, storefronts: ["USA"], program: "us_link", tokenRequired: false, reporting: nil),
        .init(platform: .ios, storefronts: ["DEU", "JPN"], program: "apple_external_purchase", tokenRequired: true, reporting: .apple),
        .init(platform: .android, storefronts: ["USA"], program: "google_external_links", tokenRequired: true, reporting: .google)
    ])

    @Test("A storefront of a rule gets its programme and token rule; the same storefront on the other platform follows that platform's rule")
    func eligible() throws {
        let check = CheckoutEligibility(policy: Self.policy)
        let us = try check.check(platform: "ios", storefront: "USA")
        #expect(us.linkOut && us.program == "us_link" && !us.tokenRequired)
        let germany = try check.check(platform: "iOS", storefront: "deu")
        #expect(germany.linkOut && germany.program == "apple_external_purchase" && germany.tokenRequired)
        #expect(germany.rule?.reporting == .apple)
        let android = try check.check(platform: "android", storefront: "USA")
        #expect(android.program == "google_external_links" && android.tokenRequired)
    }

    @Test("A storefront no rule names may not link out; it is not an error")
    func notEligible() throws {
        let check = CheckoutEligibility(policy: Self.policy)
        for (platform, storefront) in [("ios", "FRA"), ("android", "DEU"), ("android", "JPN")] {
            let answer = try check.check(platform: platform, storefront: storefront)
            #expect(!answer.linkOut && answer.program == nil && !answer.tokenRequired, "\(platform) \(storefront)")
        }
    }

    @Test("A missing or unknown platform, or a storefront that is not two or three letters, is a bad request")
    func badInput() {
        let check = CheckoutEligibility(policy: Self.policy)
        for (platform, storefront) in [
            (nil, "USA"), ("web", "USA"), ("macos", "USA"), ("ios", nil), ("ios", "U"), ("ios", "US1"), ("ios", "UNITED"), ("ios", "É")
        ] {
            #expect(throws: UseCaseError.self, "\(String(describing: platform)) \(String(describing: storefront))") {
                try check.check(platform: platform, storefront: storefront)
            }
        }
    }

    @Test(
        "An ISO 3166-1 alpha-2 storefront (Play's regionCode, paywall SDKs) is the same storefront as its alpha-3 code (STORES.md \"Country codes\")")
    func alpha2IsAlpha3() throws {
        let check = CheckoutEligibility(policy: Self.policy)
        for (platform, alpha2, alpha3) in [
            ("ios", "US", "USA"), ("ios", "de", "DEU"), ("ios", "Jp", "JPN"), ("android", "US", "USA"), ("ios", "FR", "FRA")
        ] {
            #expect(try check.check(platform: platform, storefront: alpha2) == check.check(platform: platform, storefront: alpha3), "\(alpha2)")
            #expect(try CheckoutEligibility.storefront(alpha2) == alpha3)
        }
        #expect(try check.check(platform: "ios", storefront: "US").program == "us_link")
        // Letters of no country stay as sent: no rule names them.
        #expect(try !check.check(platform: "ios", storefront: "XK").linkOut)
        #expect(try CheckoutEligibility.storefront("zzz") == "ZZZ")
    }
}
