import App
import Domain
import Foundation
import UseCases

extension AdminCommand {
    /// `admin funnel [--since 7d]`: the redemption funnel of the web purchases paid in the window
    /// (`<n>h` or `<n>d`, 1 h–90 d), one figure a line.
    static func funnel(_ services: UseCaseFactory, options: [String: String]) async throws {
        var window = FunnelWindow.week
        if let since = options["since"] {
            guard let parsed = FunnelWindow.parse(since) else { throw UsageError(message: "--" + FunnelWindow.forms) }
            window = parsed
        }
        let report = try await services.funnel.report(since: window, now: Date())
        let figures = report.figures
        print("since\t\(report.window.text)")
        print("paid\t\(figures.paid)")
        print("success_page_seen\t\(figures.successPageSeen)")
        print("redeemed\t\(figures.redeemed)")
        print("redeemed_within_5m\t\(figures.redeemedWithin5m)")
        print("redeemed_within_1h\t\(figures.redeemedWithin1h)")
        print("redeemed_within_24h\t\(figures.redeemedWithin24h)")
        print("median_seconds_to_redeem\t\(figures.medianSecondsToRedeem.map { String(Int($0.rounded())) } ?? "-")")
        print("unredeemed_over_24h\t\(figures.unredeemedOver24h)")
    }
}
