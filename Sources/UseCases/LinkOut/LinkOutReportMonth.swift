import Domain
import Foundation

/// One calendar month (UTC) of link-out reports as operators read them (`tollgate admin reports`,
/// `GET /admin/v1/reports`): every report queued in it, and the figures per platform and
/// currency the developer reconciles against the platforms' invoices.
public struct LinkOutReportMonth: Sendable, Equatable {
    /// The figures of one platform in one currency, in the currency's minor units (cents).
    public struct Totals: Sendable, Equatable {
        public let reporting: LinkOutPolicy.Reporting
        /// ISO 4217, upper case; empty for reports without amounts (tokens that led to nothing).
        public let currency: String
        /// First payments and renewals reported.
        public var payments = 0
        /// Their amount before tax, and their tax.
        public var paidPreTax = 0
        public var paidTax = 0
        /// Refunds reported, their amount before tax and their tax.
        public var refunds = 0
        public var refundedPreTax = 0
        public var refundedTax = 0
        /// Tokens reported as having led to nothing (also those Apple told of that Tollgate never kept).
        public var unpurchasedTokens = 0
        /// Reports by status: `sent`, `pending`, `sending`, `failed`.
        public var statuses: [String: Int] = [:]
    }

    /// `YYYY-MM`.
    public let month: String
    public let from: Date
    public let to: Date
    /// The reports queued in the month, oldest first (at most the limit asked for).
    public let reports: [LinkOutReportStore.Listed]
    /// How many reports were queued in the month (`totals` adds up all of them).
    public let count: Int
    /// Figures of those reports, by platform then currency.
    public let totals: [Totals]

    /// The month `text` (`2026-11`), or the one `now` is in when nil.
    /// - Throws: `UseCaseError.badRequest` for anything but `YYYY-MM` with a month 01–12.
    public static func bounds(_ text: String?, now: Date) throws -> (month: String, from: Date, to: Date) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let (year, month): (Int, Int)
        if let text {
            let parts = text.split(separator: "-", omittingEmptySubsequences: false)
            guard text.utf8.count == 7, parts.count == 2, parts[0].count == 4, parts[1].count == 2,
                let y = Int(parts[0]), let m = Int(parts[1]), (1...12).contains(m), y >= 1970
            else { throw UseCaseError.badRequest("month must be YYYY-MM (e.g. 2026-11).") }
            (year, month) = (y, m)
        } else {
            let parts = calendar.dateComponents([.year, .month], from: now)
            (year, month) = (parts.year ?? 1970, parts.month ?? 1)
        }
        guard let from = calendar.date(from: DateComponents(year: year, month: month, day: 1)),
            let to = calendar.date(byAdding: .month, value: 1, to: from)
        else { throw UseCaseError.badRequest("month must be YYYY-MM (e.g. 2026-11).") }
        return (String(format: "%04d-%02d", year, month), from, to)
    }

    /// Adds up `reports` and keeps the first `listing` of them.
    public init(month: String, from: Date, to: Date, reports: [LinkOutReportStore.Listed], listing: Int) {
        self.month = month
        self.from = from
        self.to = to
        self.reports = Array(reports.prefix(listing))
        count = reports.count
        var totals: [String: Totals] = [:]
        for report in reports {
            let currency = report.lines.first?.currency ?? ""
            let key = report.reporting.rawValue + "/" + currency
            var sum = totals[key] ?? Totals(reporting: report.reporting, currency: currency)
            sum.statuses[report.status, default: 0] += 1
            for line in report.lines {
                switch line.kind {
                case .purchase, .renewal:
                    sum.payments += 1
                    sum.paidPreTax += line.amountMinor ?? 0
                    sum.paidTax += line.taxMinor ?? 0
                case .refund:
                    sum.refunds += 1
                    sum.refundedPreTax += line.amountMinor ?? 0
                    sum.refundedTax += line.taxMinor ?? 0
                }
            }
            if report.kind == .noPurchase || report.kind == .unrecognized { sum.unpurchasedTokens += 1 }
            totals[key] = sum
        }
        self.totals = totals.keys.sorted().compactMap { totals[$0] }
    }
}
