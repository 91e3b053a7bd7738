import Foundation
import Testing
import TestSupport

/// `tollgate reconcile` as an operator runs it on the host, beside the running service and on its
/// database: what the webhooks missed is applied once, whichever process runs first.
@Suite("tollgate reconcile")
struct ReconcileCommandTests {
    static let webhookSecret = "whsec_cli_reconcile"

    @Test("Beside the running service: a paid checkout whose webhooks never came is recorded once; --since reads again, changing nothing")
    func missedCheckout() async throws {
        let stripe = try FakeStripe(webhookSecret: Self.webhookSecret, knownPrices: ["price_monthly"])
        let directory = try TemporaryDirectory()
        let config = try directory.writeConfig([
            "base_url": "https://pay.example.com",
            "stripe": ["secret_key": "sk_test_fake_123", "webhook_secret": Self.webhookSecret, "api_base": stripe.baseURL],
            "plans": ["monthly": ["price_id": "price_monthly", "mode": "subscription"]],
            "entitlements": ["premium": ["price_monthly"]]
        ])
        let (server, port) = try await ServeTests.startServer(["serve", "--config", config])
        defer { kill(server.pid, SIGKILL) }
        let (status, headers, _) = try await LoopbackClient().send(
            "GET", port, "/checkout/start?plan=monthly&app_user_id=cli-user&email=buyer%40example.com")
        #expect(status == 303)
        let session = String(try #require((headers["Location"] ?? headers["location"])?.split(separator: "/").last))
        _ = try stripe.completeSession(id: session, email: "buyer@example.com", periodEnd: Date().addingTimeInterval(30 * 86_400))
        // The buyer closed the tab; Stripe's webhooks never reached the service.

        let first = try await ChildProcess.run("tollgate", ["reconcile", "--config", config])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("stripe\tok\tchecked 3\tchanges 3"), "\(first.stdout)")

        let second = try await ChildProcess.run("tollgate", ["reconcile", "--config", config])
        // Read again from a little before the cursor (events a provider lists late): no change.
        #expect(second.stdout.contains("stripe\tok\tchecked 3\tchanges 0"), "\(second.stdout)")
        let again = try await ChildProcess.run("tollgate", ["reconcile", "--since", "2h", "--config", config])
        #expect(again.status == 0)
        #expect(again.stdout.contains("stripe\tok\tchecked 3\tchanges 0"), "\(again.stdout)")

        // One purchase, one code: what an operator sees.
        let purchases = try await ChildProcess.run("tollgate", ["admin", "purchases", "--email", "buyer@example.com", "--config", config])
        #expect(purchases.stdout.split(separator: "\n").filter { $0.contains("stripe") }.count == 1, "\(purchases.stdout)")
        let codes = try await ChildProcess.run("tollgate", ["admin", "codes", "--email", "buyer@example.com", "--config", config])
        #expect(codes.stdout.split(separator: "\n").filter { $0.contains("code_") || $0.contains("active") }.count == 1, "\(codes.stdout)")
        await stripe.stop()
    }

    @Test(
        "Usage: --since takes a duration; nothing configured to reconcile is an error",
        arguments: [
            (["reconcile", "--since", "soon"], 64, "--since takes a duration"),
            (["reconcile", "--email", "x@y.z"], 64, "'reconcile' takes only --since"),
            (["reconcile", "now"], 64, "takes no argument 'now'")
        ])
    func usage(arguments: [String], status: Int32, message: String) async throws {
        let directory = try TemporaryDirectory()
        let config = try directory.writeConfig(["stripe": [String: Any]()])
        let result = try await ChildProcess.run("tollgate", arguments + ["--config", config])
        #expect(result.status == status)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }
}
