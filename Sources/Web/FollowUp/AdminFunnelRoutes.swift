import Domain
import Foundation
import HTTPCore
import HTTPRouting
import UseCases

/// `GET /admin/v1/funnel?since=7d`: the redemption funnel of the web purchases paid in the
/// window (API.md "The funnel").
struct AdminFunnelRoutes {
    let funnel: FunnelReport
    let now: @Sendable () -> Date

    func add(to group: inout RouteGroup) {
        group.add(.get, "/admin/v1/funnel") { [funnel, now] request, _ in
            let window: FunnelWindow
            if let since = request.queryParameter("since") {
                guard let parsed = FunnelWindow.parse(since) else { throw APIError.badRequest(FunnelWindow.forms + ".") }
                window = parsed
            } else {
                window = .week
            }
            let report = try await funnel.report(since: window, now: now())
            return .json { json in Self.write(report, into: &json) }
        }
    }

    /// The report's JSON, exactly API.md's fields.
    static func write(_ report: FunnelReport.Report, into json: inout JSONWriter) {
        let figures = report.figures
        json.string("since", report.window.text)
        json.int("paid", figures.paid)
        json.int("success_page_seen", figures.successPageSeen)
        json.int("redeemed", figures.redeemed)
        json.object("redeemed_within") { within in
            within.int("5m", figures.redeemedWithin5m)
            within.int("1h", figures.redeemedWithin1h)
            within.int("24h", figures.redeemedWithin24h)
        }
        // Whole seconds; null when nothing was redeemed.
        json.int("median_seconds_to_redeem", figures.medianSecondsToRedeem.map { Int($0.rounded()) })
        json.int("unredeemed_over_24h", figures.unredeemedOver24h)
    }
}
