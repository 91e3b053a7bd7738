import Foundation
import HTTPCore
import HTTPRouting
import Testing
import TestSupport

@testable import Web

/// The docs say what the code does (issue 43, item 12): where "Open the app" goes on iOS, that
/// redirect mode still mails the code, and how often the Swift client retries.
@Suite("The docs agree with the code")
struct ReadmeAgreesWithCodeTests {
    /// The text of `docs/<name>`.
    static func doc(_ name: String) throws -> String {
        try String(contentsOfFile: PackagePaths.root + "/docs/" + name, encoding: .utf8)
    }

    @Test("iOS \"Open\": the success page's is the universal link, the landing's the custom scheme, and the docs say so once")
    func iosOpen() async throws {
        let harness = try CheckoutHarness()
        let id = try await harness.startCheckout()
        try harness.pay(id)
        let iPhone =
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"
        let page = await harness.successPage(id, userAgent: iPhone)
        let code = try #require(CheckoutHarness.code(in: page))
        #expect(page.text.contains(#"id="open-app" href="https://pay.example.com/redeem/\#(code)""#), "\(page.text.prefix(2000))")
        let landing = await harness.app.send(.get, "/redeem/\(code)", headers: ["User-Agent": iPhone])
        #expect(landing.text.contains(#"id="open-app" href="exampleapp://redeem?code&#61;\#(code)""#), "\(landing.text.prefix(2000))")

        let pages = try Self.doc("PAGES.md"), client = try Self.doc("SWIFT-CLIENT.md")
        #expect(!pages.contains("\"Open the app\" uses the custom scheme on iOS and an `intent://` link on Android"))
        #expect(pages.contains("On the success page \"Open the app\" (and\nthat one attempt) is the universal link on iOS"))
        #expect(client.contains("is the universal link (`https://pay.example.com/redeem/CODE`), then the App Store"))
    }

    @Test("Redirect mode still mails the code, once, and docs/SUPERWALL.md says so")
    func redirectModeMails() async throws {
        let harness = try CheckoutHarness(redemption: ["mode": "redirect"])
        let id = try await harness.startCheckout("plan=monthly&app_user_id=user-r&email=redirect%40example.com")
        try harness.pay(id, email: "redirect@example.com")
        let response = await harness.successPage(id)
        #expect(response.status == .found)
        #expect(await harness.successPage(id).status == .found, "a refresh")
        #expect(try await harness.count("SELECT count(*) FROM mail_outbox WHERE template = 'redemption_code'") == 1)
        #expect(try Self.doc("SUPERWALL.md").contains("The code is still\n  mailed to the buyer"))
    }

    @Test("docs/SWIFT-CLIENT.md's retry words match the Swift client's numbers: up to 6 retries, 7 attempts")
    func retryWords() throws {
        let client = try Self.doc("SWIFT-CLIENT.md")
        #expect(client.contains("(up to 6 retries, 7 attempts, one Idempotency-Key)"))
        #expect(!client.contains("(6 attempts, one Idempotency-Key)"))
        let policy = try String(contentsOfFile: PackagePaths.root + "/Sources/TollgateClient/RetryPolicy.swift", encoding: .utf8)
        #expect(policy.contains("maxAttempts: Int = 7,"), "the client's default is API.md's 6 retries after the first attempt")
    }
}
