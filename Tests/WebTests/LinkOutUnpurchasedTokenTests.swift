import Crypto
import Foundation
import JSON
import Testing
import TestSupport

@testable import App

/// Apple wants a report for every token, also one that led to nothing (API.md "Link-out
/// compliance"): `EXTERNAL_PURCHASE_TOKEN` / `UNREPORTED` makes such a token reported at once; the
/// worker's periodic look reports the others a week after they were made; a token the
/// notification names that Tollgate never kept is reported as `UNRECOGNIZED_TOKEN`. Each once. A
/// checkout without a token reports nothing.
@Suite("Link-out: tokens that led to nothing")
struct LinkOutUnpurchasedTokenTests {
    /// A signed `EXTERNAL_PURCHASE_TOKEN` / `UNREPORTED` notification about `externalPurchaseID`.
    static func unreported(_ harness: StoresHarness, _ externalPurchaseID: String) async throws -> Int {
        let payload: JSONValue = .object([
            ("notificationType", "EXTERNAL_PURCHASE_TOKEN"), ("subtype", "UNREPORTED"), ("notificationUUID", .string(UUID().uuidString.lowercased())),
            ("version", "2.0"), ("signedDate", .integer(Int64(harness.clock.now.timeIntervalSince1970 * 1000))),
            (
                "externalPurchaseToken",
                .object([
                    ("externalPurchaseId", .string(externalPurchaseID)),
                    ("tokenCreationDate", .integer(Int64(harness.clock.now.timeIntervalSince1970 * 1000))),
                    ("appAppleId", .integer(Int64(StoresHarness.appAppleID))), ("bundleId", .string(StoresHarness.bundleID))
                ])
            )
        ])
        let body = JSONValue.object([("signedPayload", .string(try harness.pki.signer().sign(payload)))]).serialized()
        return await harness.app.send(.post, "/webhooks/apple", headers: ["Content-Type": "application/json"], bytes: body).status.code
    }

    @Test(
        "UNREPORTED reports its token without line items at once (an unknown one as unrecognized); the periodic look reports the rest after a week; each once"
    )
    func unpurchased() async throws {
        let harness = try await StoresHarness(extra: LinkOutFlow.config(rules: LinkOutReportingEndToEndTests.appleRules))
        let flow = LinkOutFlow(harness)
        let worker = harness.app.app.workers.linkOut
        for id in ["SANDBOX_notified", "SANDBOX_idle"] {
            let token = FakeExternalPurchaseToken.make(externalPurchaseID: id, createdAt: harness.clock.now)
            _ = try await flow.start("platform=ios&storefront=DEU&external_purchase_token=\(token)")
        }
        try await flow.pay(try await flow.start("email=plain%40example.com"))

        #expect(try await Self.unreported(harness, "SANDBOX_notified") == 200)
        #expect(try await Self.unreported(harness, "SANDBOX_never_seen") == 200, "a token Tollgate never kept is reported as unrecognized")
        #expect(await worker.queueUnpurchased() == 0, "the other token is too young")
        await flow.sendReports()
        harness.clock.advance(8 * 86_400)
        #expect(await worker.queueUnpurchased() == 1)
        #expect(await worker.queueUnpurchased() == 0)
        #expect(try await Self.unreported(harness, "SANDBOX_notified") == 200)
        #expect(try await Self.unreported(harness, "SANDBOX_never_seen") == 200)
        await flow.sendReports()

        let reports = harness.externalPurchase.acceptedReports(.sandbox)
        #expect(reports.map { $0["externalPurchaseId"] as? String } == ["SANDBOX_notified", "SANDBOX_never_seen", "SANDBOX_idle"])
        #expect(reports.map { $0["status"] as? String } == ["NO_LINE_ITEM", "UNRECOGNIZED_TOKEN", "NO_LINE_ITEM"])
        #expect(reports.allSatisfy { $0["lineItems"] == nil })
        let stored = try await flow.reports()
        #expect(stored.map(\.kind) == ["no_purchase", "unrecognized_token", "no_purchase"], "the plain checkout queued nothing: \(stored)")
        #expect(stored.allSatisfy { $0.status == "sent" })
        await harness.stop()
    }
}
