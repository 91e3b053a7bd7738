import Domain
import Foundation
import Storage
import Testing
import UseCases

/// The redemption funnel without HTTP: the window's forms, the figures of a cohort, and the
/// time-to-redeem histogram observing each first redemption once.
@Suite("Redemption funnel")
struct FunnelTests {
    @Test(
        "since is <n>h or <n>d from 1 h to 90 d; anything else is refused",
        arguments: [
            ("7d", 7 * 86_400.0), ("1h", 3600), ("90d", 90 * 86_400), ("2160h", 2160 * 3600), ("24h", 86_400),
            ("0h", nil), ("0d", nil), ("91d", nil), ("2161h", nil), ("7", nil), ("d", nil), ("7w", nil), (" 7d", nil), ("-1d", nil),
            ("1.5d", nil), ("７d", nil), ("", nil), ("99999999999d", nil), ("07d", nil), ("001h", nil)
        ] as [(String, Double?)])
    func window(_ text: String, _ seconds: Double?) {
        #expect(FunnelWindow.parse(text)?.seconds == seconds)
    }

    @Test("Paid, success page seen, redeemed (how soon), unredeemed over 24 h; the window by payment time; the histogram once")
    func figures() async throws {
        let bench = try UseCaseBench()
        _ = try bench.paidPurchase("sub_old")  // paid 8 days before the report: outside 7d
        bench.advance(8 * 86_400)
        let (_, fast) = try bench.paidPurchase("sub_fast")
        let (slow, slowCode) = try bench.paidPurchase("sub_slow")
        _ = try bench.paidPurchase("sub_waiting")
        _ = try bench.paidPurchase("sub_refunded")
        bench.advance(120)
        try await ReminderTests.redeem(bench, fast, appUserID: "user-fast")
        bench.advance(3000 - 120)  // within the bench's 1-hour code life
        try await ReminderTests.redeem(bench, slowCode, appUserID: "user-slow")
        let now = bench.now
        try bench.database.writeSync { connection in
            try BuyerJourneyRepository.markSuccessSeen(purchaseID: slow.id, on: connection, now: now)
            try BuyerJourneyRepository.markSuccessSeen(purchaseID: slow.id, on: connection, now: now.addingTimeInterval(5))
            _ = try PurchaseRepository.apply(
                PurchaseSnapshot(
                    platform: .stripe, externalID: "sub_refunded", productID: "price_monthly", status: .refunded, expiresAt: nil,
                    observedAt: now, purchaserEmail: "buyer@example.com"),
                on: connection, now: now)
        }
        bench.advance(25 * 3600 - 3000)
        let funnel = FunnelReport(database: bench.database)
        let report = try await funnel.report(since: .week, now: bench.now)
        let figures = report.figures
        #expect(report.window.text == "7d")
        #expect(figures.paid == 4)
        #expect(figures.successPageSeen == 1)
        #expect(figures.redeemed == 2)
        #expect(figures.redeemedWithin5m == 1 && figures.redeemedWithin1h == 2 && figures.redeemedWithin24h == 2)
        #expect(figures.medianSecondsToRedeem == 1560.0, "the middle of 120 s and 3000 s")
        #expect(figures.unredeemedOver24h == 1, "the refunded one is not waiting")
        #expect(try await funnel.report(since: try #require(FunnelWindow.parse("1h")), now: bench.now).figures.paid == 0)

        let waiting = try await funnel.unredeemed(since: .week, now: bench.now)
        #expect(waiting.map(\.externalID) == ["sub_waiting"], "the console's list: neither redeemed nor refunded, paid over 24 h ago")
        #expect(try await funnel.observeRedemptions() == 2)
        #expect(try await funnel.observeRedemptions() == 0, "each first redemption is observed once")
        let histogram = funnel.times.snapshot()
        #expect(histogram.count == 2)
        #expect(histogram.bounds == [60, 300, 900, 3600, 21_600, 86_400, 259_200])
        #expect(histogram.bucketCounts == [0, 1, 0, 1, 0, 0, 0])
    }

    @Test("The median of an empty cohort is null; of an odd one its middle")
    func median() {
        let paid = Date(timeIntervalSince1970: 1_800_000_000)
        func row(_ seconds: Double?) -> BuyerJourneyRepository.CohortRow {
            BuyerJourneyRepository.CohortRow(paidAt: paid, successSeenAt: nil, linkedAt: seconds.map { paid.addingTimeInterval($0) }, refunded: false)
        }
        #expect(FunnelFigures(cohort: [], now: paid).medianSecondsToRedeem == nil)
        #expect(FunnelFigures(cohort: [row(nil)], now: paid).medianSecondsToRedeem == nil)
        #expect(FunnelFigures(cohort: [row(30), row(10), row(600), row(nil)], now: paid).medianSecondsToRedeem == 30)
    }
}
