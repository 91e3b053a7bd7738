import Configuration
import Foundation
import HTTPCore
import HTTPRouting
import Logging
import Testing

@testable import App

/// Buyer-facing pages a newcomer stumbled on: none dead-ends or shows the service's internals.
@Suite("Pages a newcomer stumbled on")
struct NewcomerPagesTests {
    @Test("A checkout that cannot start is a calm page: no configuration key, no 'Error 503', a way to try again; the key goes to the log")
    func checkoutUnavailableIsCalm() async throws {
        let directory = try TemporaryDirectory()
        let config = try ConfigLoader.load(
            path: nil,
            environment: [
                "TOLLGATE_STRIPE_SIMULATOR": "false", "TOLLGATE_DATABASE_PATH": directory.path + "/tollgate.sqlite",
                "TOLLGATE_MAIL_FILE_DIR": directory.path + "/mail"
            ])
        let logs = MemoryLogSink()
        let app = TestApp(directory: directory, app: try TollgateApp(config: config, logger: Logger(sink: logs)), logs: logs)
        let page = await app.send(.get, "/checkout/start?plan=demo")
        #expect(page.status == .serviceUnavailable)
        #expect(page.text.contains("Checkout is not available right now"))
        #expect(page.text.contains(#"href="/checkout/start?plan&#61;demo""#), "a Try again link")
        for leak in ["stripe.", "secret_key", "Error 503", "503"] {
            #expect(!page.text.contains(leak), "the page shows \(leak)")
        }
        #expect(logs.lines.contains { $0.contains("checkout_not_configured") && $0.contains("stripe.secret_key") })
    }

    @Test("The resend form keeps what the buyer typed, and its heading stays that of their case")
    func resendFormKeepsInput() async throws {
        let app = try TestApp()
        let unknown = await app.send(
            .post, "/redeem/resend", headers: ["Content-Type": "application/x-www-form-urlencoded"], body: "email=buyer%40example&case=unknown")
        #expect(unknown.status == .badRequest)
        #expect(unknown.text.contains(#"value="buyer@example""#))
        #expect(unknown.text.contains("We could not find this code"))
        let expired = await app.send(
            .post, "/redeem/resend", headers: ["Content-Type": "application/x-www-form-urlencoded"], body: "email=nope&case=expired")
        #expect(expired.text.contains("This code has expired"))
        #expect(expired.text.contains(#"value="nope""#))
    }

    @Test("/redeem/{code} for a redeemed code says so and still opens the app")
    func redeemedCodePage() async throws {
        let harness = try CheckoutHarness()
        let sessionID = try await harness.startCheckout()
        try harness.pay(sessionID)
        let code = try #require(CheckoutHarness.code(in: await harness.successPage(sessionID)))
        #expect(await harness.redeem(code).jsonObject?["status"] as? String == "success")
        let page = await harness.app.send(.get, "/redeem/\(code)", headers: ["User-Agent": "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X)"])
        #expect(page.status == .ok)
        #expect(page.text.contains("This code was already redeemed"))
        #expect(page.text.contains("exampleapp://redeem?code&#61;"), "the button still opens the app")
    }
}
