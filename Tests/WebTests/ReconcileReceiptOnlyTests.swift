import Domain
import Foundation
import HTTPCore
import Testing
import TestSupport

@testable import App
@testable import UseCases

/// verifyReceipt-only deployments (issue 43, item 11: GoNative with the shared secret and no App
/// Store Server API key): the latest receipt is kept sealed, and the reconciler verifies it again
/// when a subscription's period ends without news, against the fake verifyReceipt answering as
/// Apple does (the same receipt's `latest_receipt_info` grows with each renewal).
@Suite("Reconciler: verifyReceipt-only deployments re-verify the kept receipt")
struct ReconcileReceiptOnlyTests {
    static let receipt = "MIIRECEIPTONLY0123456789abcdef"
    static let original = "4000000000000321"

    /// Apple's answer for the receipt: the subscription's periods so far, the latest last.
    static func answer(_ harness: StoresHarness, periods: [(start: Date, end: Date)], autoRenew: Int = 1) -> FakeAppStoreServer.ReceiptAnswer {
        let purchases = periods.enumerated().map { index, period in
            FakeAppStoreServer.ReceiptPurchase(
                transactionID: String(Int64(Self.original)! + Int64(index)), originalTransactionID: Self.original,
                purchaseDate: period.start, expiresDate: period.end, autoRenewStatus: autoRenew, originalPurchaseDate: periods[0].start)
        }
        return .receipt(
            bundleID: StoresHarness.bundleID, environment: "Sandbox", latestReceiptInfo: [purchases[purchases.count - 1]], inApp: purchases,
            requestDate: harness.clock.now)
    }

    static func stored(_ harness: StoresHarness) async throws -> Purchase {
        try #require(try await harness.purchase(.appStore, Self.original))
    }

    static let day: TimeInterval = 86_400

    /// A month's subscription that ends a day from now, claimed through GoNative's postUrl; its period.
    static func claimSubscription(_ harness: StoresHarness) async throws -> (start: Date, end: Date) {
        let now = harness.clock.now
        let period = (start: now.addingTimeInterval(-29 * day), end: now.addingTimeInterval(day))
        harness.apple.addReceipt(Self.receipt, environment: .sandbox, answer: Self.answer(harness, periods: [period]))
        let (_, cookie) = try await GoNativeWebTests.signedInWebView(harness)
        let claimed = await GoNativeWebTests.post(harness, receipt: Self.receipt, cookie: cookie)
        #expect(claimed.jsonObject?["success"] as? Bool == true, "\(claimed.text)")
        return period
    }

    @Test("A renewal Apple made while no notification came is found by verifying the kept receipt again; the receipt is sealed at rest")
    func missedRenewal() async throws {
        let harness = try await StoresHarness(appStoreAPI: false)
        defer { Task { await harness.stop() } }
        let day = Self.day
        let first = try await Self.claimSubscription(harness)
        #expect(try await Self.stored(harness).expiresAt == first.end)

        // Kept, sealed: the receipt's bytes are nowhere in the database file.
        #expect(try await harness.count("SELECT COUNT(*) FROM app_store_receipts") == 1)
        let sealed = try await harness.app.app.database.read {
            try $0.queryOne("SELECT receipt_sealed FROM app_store_receipts")?.blob("receipt_sealed")
        }
        #expect(!String(decoding: try #require(sealed), as: UTF8.self).contains("MIIRECEIPTONLY"))

        // Apple renewed it; no notification reached this deployment. The same receipt now verifies with the new period.
        let second = (start: first.end, end: first.end.addingTimeInterval(30 * day))
        harness.apple.addReceipt(Self.receipt, environment: .sandbox, answer: Self.answer(harness, periods: [first, second]))
        harness.clock.advance(2 * day)
        let requestsBefore = harness.apple.receiptRequests.count
        let reports = await harness.app.app.reconcile.run()
        let appStore = try #require(reports.first { $0.provider == "app_store" }, "the App Store is reconciled without the Server API")
        #expect(appStore.outcome == "ok")
        #expect(appStore.checked == 1 && appStore.changes == 1)
        #expect(harness.apple.receiptRequests.count > requestsBefore)
        let renewed = try await Self.stored(harness)
        #expect(renewed.expiresAt == second.end)
        #expect(renewed.status == .active)

        // Asked once per period end: a second run asks nothing.
        let again = await harness.app.app.reconcile.run()
        #expect(again.first { $0.provider == "app_store" }?.checked == 0)

        // The receipt is the buyer's: it goes with the account.
        let holder = try #require(renewed.accountID)
        let now = harness.clock.now
        _ = try await harness.app.app.database.write { try AccountErasure.erase(accountID: holder, on: $0, now: now) }
        #expect(try await harness.count("SELECT COUNT(*) FROM app_store_receipts") == 0)
    }

    @Test("A subscription Apple ended (renewal off, period over) is found ended; with the Server API configured no receipt is kept")
    func missedEnding() async throws {
        let harness = try await StoresHarness(appStoreAPI: false)
        defer { Task { await harness.stop() } }
        let period = try await Self.claimSubscription(harness)
        harness.apple.addReceipt(Self.receipt, environment: .sandbox, answer: Self.answer(harness, periods: [period], autoRenew: 0))
        harness.clock.advance(2 * Self.day)
        let reports = await harness.app.app.reconcile.run()
        #expect(reports.first { $0.provider == "app_store" }?.changes == 1)
        let ended = try await Self.stored(harness)
        #expect(ended.status == .expired, "\(ended.status)")

        let withAPI = try await StoresHarness()
        defer { Task { await withAPI.stop() } }
        _ = try await Self.claimSubscription(withAPI)
        #expect(try await withAPI.count("SELECT COUNT(*) FROM app_store_receipts") == 0, "the Server API asks by transaction id: no receipt is kept")
    }
}
