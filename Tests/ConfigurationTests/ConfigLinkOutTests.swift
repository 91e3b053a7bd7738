import Foundation
import Testing
@testable import Configuration

@Suite("link_out.rules")
struct ConfigLinkOutTests {
    func problems(_ rules: Any) -> String {
        do {
            _ = try load(json: Fixtures.json(["link_out": ["rules": rules]]))
            return ""
        } catch {
            return "\(error)"
        }
    }

    @Test("Without link_out, iOS may link out from the US storefront without a token, and nothing else")
    func defaults() throws {
        let config = try load(json: Fixtures.json())
        #expect(config.linkOut.rules == [TollgateConfig.LinkOutRule(platform: .ios, storefronts: ["USA"], program: .usLink, tokenRequired: false)])
    }

    @Test("Rules replace the default; token_required defaults to whether the programme reports")
    func decodes() throws {
        let config = try load(
            json: Fixtures.json([
                "link_out": [
                    "rules": [
                        ["platform": "ios", "storefronts": ["USA"], "program": "us_link", "token_required": false],
                        ["platform": "ios", "storefronts": ["DEU", "FRA", "JPN"], "program": "apple_external_purchase"],
                        ["platform": "android", "storefronts": ["USA"], "program": "google_external_links", "token_required": true]
                    ]
                ]
            ]))
        #expect(
            config.linkOut.rules == [
                .init(platform: .ios, storefronts: ["USA"], program: .usLink, tokenRequired: false),
                .init(platform: .ios, storefronts: ["DEU", "FRA", "JPN"], program: .appleExternalPurchase, tokenRequired: true),
                .init(platform: .android, storefronts: ["USA"], program: .googleExternalLinks, tokenRequired: true)
            ])
        let environment = #"[{"platform": "android", "storefronts": ["DEU"], "program": "google_external_offers"}]"#
        let fromEnvironment = try load(json: Fixtures.json(), environment: ["TOLLGATE_LINK_OUT_RULES": environment])
        #expect(fromEnvironment.linkOut.rules.map(\.program) == [.googleExternalOffers])
    }

    @Test(
        "Start-up refuses an unknown programme, one of another platform, a malformed storefront, a repeat, and a reporting programme without its token, naming the key"
    )
    func refused() throws {
        let unknown = problems([["platform": "ios", "storefronts": ["USA"], "program": "eu_link"]])
        #expect(unknown.contains("link_out.rules[0].program") && unknown.contains("apple_external_purchase"), "\(unknown)")
        #expect(
            problems([["platform": "android", "storefronts": ["USA"], "program": "us_link"]]).contains("us_link is a programme of ios, not android"))
        for code in ["US", "usa", "U$A", "DEUT"] {
            #expect(
                problems([["platform": "ios", "storefronts": [code], "program": "us_link"]]).contains("link_out.rules[0].storefronts[0]"), "\(code)")
        }
        #expect(problems([["platform": "ios", "storefronts": [], "program": "us_link"]]).contains("at least one storefront"))
        let twice = problems([
            ["platform": "ios", "storefronts": ["USA"], "program": "us_link"],
            ["platform": "ios", "storefronts": ["DEU", "USA"], "program": "apple_external_purchase"]
        ])
        #expect(twice.contains("link_out.rules[1].storefronts[1]") && twice.contains("earlier rule"), "\(twice)")
        #expect(
            problems([
                ["platform": "ios", "storefronts": ["USA"], "program": "us_link"],
                ["platform": "android", "storefronts": ["USA"], "program": "google_external_links"]
            ]).isEmpty, "one storefront on two platforms is fine")
        #expect(
            problems([["platform": "android", "storefronts": ["USA"], "program": "google_external_links", "token_required": false]])
                .contains("link_out.rules[0].token_required"))
        #expect(problems([["platform": "windows", "storefronts": ["USA"], "program": "us_link"]]).contains("link_out.rules[0].platform"))
        #expect(problems([["platform": "ios", "storefronts": ["USA"], "program": "us_link", "tokens": true]]).contains("link_out.rules[0].tokens"))
        #expect(problems(["platform": "ios"]).contains("expected an array"))
    }
}
