import Domain
import Foundation
import Integrations
import Storage
import Testing
import TestSupport

@testable import UseCases

/// What Stripe's objects put in the link-out queue (`StripeLinkOutReports`), without HTTP.
@Suite("Link-out reports from Stripe's objects")
struct StripeLinkOutReportsTests {
    static func lines(_ bench: UseCaseBench, kind: String) throws -> [LinkOutReportLine] {
        try bench.database.readSync { connection in
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .millisecondsSince1970
            return try connection.query("SELECT body FROM link_out_reports WHERE kind = ? ORDER BY created_at", [kind]).flatMap {
                try decoder.decode([LinkOutReportLine].self, from: Data(try $0.string("body").utf8))
            }
        }
    }

    @Test("invoice.paid: the invoice that opened the subscription is never a renewal; a later one is, with its tax and period")
    func renewal() throws {
        let (bench, purchase, _) = try LinkOutReportWorkerTests.setUp()
        let start = Date(timeIntervalSince1970: bench.now.timeIntervalSince1970.rounded(.down) + 30 * 86_400)
        let subscription = StripeSubscription(id: "sub_1", status: .active, customerID: "cus_1", priceIDs: ["price_monthly"], currentPeriodEnd: nil)
        var opening = StripeInvoice(id: "in_open", subscriptionID: "sub_1", billingReason: "subscription_create", currency: "usd")
        opening.total = 999
        var cycle = StripeInvoice(
            id: "in_cycle", subscriptionID: "sub_1", periodEnd: start.addingTimeInterval(30 * 86_400), billingReason: "subscription_cycle",
            currency: "eur")
        cycle.periodStart = start
        cycle.total = 1190
        cycle.totalExcludingTax = 1000
        let now = bench.now
        let queued = try bench.database.writeSync { connection in
            (
                try StripeLinkOutReports.invoicePaid(opening, subscription: subscription, purchase: purchase, paidAt: now, on: connection, now: now),
                try StripeLinkOutReports.invoicePaid(cycle, subscription: subscription, purchase: purchase, paidAt: start, on: connection, now: now),
                try StripeLinkOutReports.invoicePaid(cycle, subscription: subscription, purchase: purchase, paidAt: start, on: connection, now: now)
            )
        }
        #expect(queued == (false, true, false), "the opening invoice is the checkout's; the cycle's once")
        let renewal = try #require(try Self.lines(bench, kind: "renewal").first)
        #expect(renewal.amountMinor == 1000 && renewal.taxMinor == 190 && renewal.currency == "EUR")
        #expect(renewal.periodStart == start && renewal.periodEnd == start.addingTimeInterval(30 * 86_400))
    }

    @Test("A refund of a purchase paid once reports that payment, whichever of its ids the charge names; each refunded total once")
    func refundOfTheOnlyPayment() throws {
        let (bench, purchase, _) = try LinkOutReportWorkerTests.setUp()
        let now = bench.now
        let queued = try bench.database.writeSync { connection in
            (
                try StripeLinkOutReports.refunded(
                    purchase, references: ["pi_unknown"], refundedTotal: 300, refundedAt: now, on: connection, now: now),
                try StripeLinkOutReports.refunded(
                    purchase, references: ["pi_unknown"], refundedTotal: 300, refundedAt: now, on: connection, now: now),
                try StripeLinkOutReports.refunded(purchase, references: ["pi_unknown"], refundedTotal: nil, refundedAt: now, on: connection, now: now)
            )
        }
        #expect(queued == (true, false, true))
        let refunds = try Self.lines(bench, kind: "refund")
        #expect(refunds.map { ($0.amountMinor ?? 0) + ($0.taxMinor ?? 0) } == [300, 699])
        #expect(refunds.last?.remainingPreTaxMinor == 0)
    }
}
