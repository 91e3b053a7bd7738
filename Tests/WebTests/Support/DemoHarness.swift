import Configuration
import Foundation
import HTTPCore
import HTTPRouting
import Logging
import StripeSimulator

@testable import App

/// The whole service with the Stripe simulator on (`stripe.simulator: true`, no secret key),
/// listening on a loopback port because the simulator's webhooks and Tollgate's Stripe client
/// both go over HTTP to this very listener.
struct DemoHarness {
    let app: TestApp

    init(payLaterDelay: Duration = .seconds(5)) throws {
        let directory = try TemporaryDirectory()
        let logs = MemoryLogSink()
        let config = try TollgateConfig.make(
            directory: directory.path,
            extra: [
                "stripe": ["simulator": true],
                "plans": ["demo": ["price_id": "price_demo_placeholder", "mode": "subscription"]],
                "entitlements": ["premium": ["price_demo_placeholder"]]
            ])
        try config.placeMigratedDatabase()
        // The listener's only client is the app's Stripe client calling the simulator, which stands
        // in for Stripe: its answers must not queue behind the other tests' work in this process.
        let tollgate = try TollgateApp(
            config: config, logger: Logger(sink: logs, minimumLevel: .debug), payLaterDelay: payLaterDelay, connectionPriority: .high,
            templates: ShippedTemplates.matching(config))
        app = TestApp(directory: directory, app: tollgate, logs: logs)
        try tollgate.start()
    }

    var simulator: StripeSimulator { app.app.stripeSimulator! }

    func stop() async { await app.app.shutdown() }

    /// Starts a demo checkout the way `a#demo-buy` does; returns the session id.
    func startCheckout(email: String? = nil) async throws -> String {
        // A new app user each time: a second checkout of the same plan for one who already holds it
        // is refused ("Already entitled").
        let query =
            "plan=demo&app_user_id=demo-user-" + UUID().uuidString.prefix(8).lowercased()
            + (email.map { "&email=" + $0.replacingOccurrences(of: "@", with: "%40") } ?? "")
        let response = await app.send(.get, "/checkout/start?" + query)
        guard response.status == .seeOther, let location = response.headers["Location"], location.contains(StripeSimulator.checkoutPath) else {
            throw HarnessError(
                "start: \(response.status) \(response.headers["Location"] ?? "") \(response.text.prefix(300)); logged: \(app.logs.lines.suffix(20))")
        }
        return String(location.split(separator: "/").last ?? "")
    }

    /// Submits the hosted page's form with `choice`.
    func submit(_ sessionID: String, choice: String, email: String = "buyer@example.com", token: String? = nil) async -> HTTPResponse {
        let formToken = token ?? simulator.hostedCheckout(id: sessionID)?.formToken ?? ""
        let body = "token=\(formToken)&email=\(email.replacingOccurrences(of: "@", with: "%40"))&choice=\(choice)"
        return await app.send(
            .post, StripeSimulator.checkoutPath + sessionID, headers: ["Content-Type": "application/x-www-form-urlencoded"], body: body)
    }

    func successPage(_ sessionID: String) async -> HTTPResponse {
        await app.send(.get, "/checkout/success?session_id=\(sessionID)")
    }
}
