import Domain
import Foundation
import HTTPCore
import HTTPRouting
import UseCases

/// `GET /admin/v1/reports?month=YYYY-MM&limit=`: the link-out reports queued in a month (UTC;
/// default the current one), what each said and how it fared, and the month's figures per
/// platform and currency (API.md "Link-out compliance").
struct AdminReportRoutes {
    let operations: OperatorActions
    let now: @Sendable () -> Date

    func add(to group: inout RouteGroup) {
        group.add(.get, "/admin/v1/reports") { [operations, now] request, _ in
            let month = request.queryParameter("month").flatMap { $0.isEmpty ? nil : $0 }
            let view = try await operations.linkOutReports(month: month, limit: try AdminQuery.limit(request), now: now())
            return .json { json in
                json.string("month", view.month)
                json.string("from", Timestamp.rfc3339(view.from))
                json.string("to", Timestamp.rfc3339(view.to))
                json.int("count", view.count)
                json.array("totals", view.totals) { json, totals in json.object { Self.write(totals, into: &$0) } }
                json.array("reports", view.reports) { json, report in json.object { Self.write(report, into: &$0) } }
            }
        }
    }

    static func write(_ totals: LinkOutReportMonth.Totals, into item: inout JSONWriter) {
        item.string("platform", totals.reporting.rawValue)
        item.string("currency", totals.currency.isEmpty ? nil : totals.currency)
        item.int("payments", totals.payments)
        item.int("paid_pre_tax", totals.paidPreTax)
        item.int("paid_tax", totals.paidTax)
        item.int("refunds", totals.refunds)
        item.int("refunded_pre_tax", totals.refundedPreTax)
        item.int("refunded_tax", totals.refundedTax)
        item.int("unpurchased_tokens", totals.unpurchasedTokens)
        item.object("statuses") { statuses in
            for status: StaticString in ["pending", "sending", "sent", "failed"] {
                statuses.int(status, totals.statuses[status.description] ?? 0)
            }
        }
    }

    static func write(_ report: LinkOutReportStore.Listed, into item: inout JSONWriter) {
        item.string("id", report.id)
        item.string("platform", report.reporting.rawValue)
        item.string("kind", report.kind.rawValue)
        item.string("status", report.status)
        item.string("request_id", report.requestID)
        item.string("program", report.program)
        item.string("storefront", report.storefront)
        item.int("attempts", report.attempts)
        item.string("last_error", report.lastError)
        item.string("created_at", Timestamp.rfc3339(report.createdAt))
        item.string("sent_at", report.sentAt.map(Timestamp.rfc3339))
        item.array("lines", report.lines) { json, line in
            json.object { item in
                item.string("kind", line.kind.rawValue)
                item.string("line_id", line.lineID)
                item.string("reference_line_id", line.referenceLineID)
                item.string("product_id", line.productID)
                item.string("occurred_at", Timestamp.rfc3339(line.occurredAt))
                item.int("amount", line.amountMinor)
                item.int("tax", line.taxMinor)
                item.string("currency", line.currency)
            }
        }
    }
}
