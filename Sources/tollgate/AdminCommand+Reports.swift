import App
import Domain
import Foundation
import UseCases

extension AdminCommand {
    /// `admin reports [--month YYYY-MM] [--limit N]`: one line per link-out report queued in the
    /// month (UTC; default the current one), oldest first, then the month's figures per platform
    /// and currency, in the currency's minor units (cents).
    static func reports(_ services: UseCaseFactory, options: [String: String]) async throws {
        if let month = options["month"], (try? LinkOutReportMonth.bounds(month, now: Date())) == nil {
            throw UsageError(message: "--month must be YYYY-MM (e.g. 2026-11)")
        }
        let view = try await services.operatorActions.linkOutReports(month: options["month"], limit: try limitOption(options), now: Date())
        print(TerminalText.row(["ID", "PLATFORM", "KIND", "STATUS", "STOREFRONT", "ATTEMPTS", "QUEUED", "AMOUNT", "TAX", "CURRENCY", "LAST ERROR"]))
        for report in view.reports {
            let amount = report.lines.reduce(0) { $0 + ($1.amountMinor ?? 0) }
            let tax = report.lines.reduce(0) { $0 + ($1.taxMinor ?? 0) }
            print(
                TerminalText.row([
                    report.id, report.reporting.rawValue, report.kind.rawValue, report.status, report.storefront, String(report.attempts),
                    Timestamp.rfc3339(report.createdAt), report.lines.isEmpty ? "" : String(amount), report.lines.isEmpty ? "" : String(tax),
                    report.lines.first?.currency ?? "", report.lastError ?? ""
                ]))
        }
        print("\(view.reports.count) of \(view.count) report(s) queued in \(view.month)")
        print("")
        print(
            TerminalText.row([
                "PLATFORM", "CURRENCY", "PAYMENTS", "PAID PRE-TAX", "PAID TAX", "REFUNDS", "REFUNDED PRE-TAX", "REFUNDED TAX", "NO PURCHASE", "SENT",
                "PENDING", "FAILED"
            ]))
        for totals in view.totals {
            print(
                TerminalText.row([
                    totals.reporting.rawValue, totals.currency.isEmpty ? "-" : totals.currency, String(totals.payments), String(totals.paidPreTax),
                    String(totals.paidTax), String(totals.refunds), String(totals.refundedPreTax), String(totals.refundedTax),
                    String(totals.unpurchasedTokens), String(totals.statuses["sent"] ?? 0),
                    String((totals.statuses["pending"] ?? 0) + (totals.statuses["sending"] ?? 0)), String(totals.statuses["failed"] ?? 0)
                ]))
        }
    }
}
