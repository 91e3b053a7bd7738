import Foundation
import Testing
import TestSupport

@testable import App

/// `GET /admin/v1/reports` (API.md "Link-out compliance"): the reports queued in a month and the
/// figures the developer reconciles against the platforms' invoices; `/metrics` counts them.
@Suite("Admin: link-out reports by month")
struct AdminLinkOutReportTests {
    @Test("Each month lists its reports (what they said, how they fared) and adds them up per platform and currency; /metrics counts them")
    func month() async throws {
        let harness = try await StoresHarness(extra: LinkOutFlow.config(rules: LinkOutReportingEndToEndTests.googleRules))
        let flow = LinkOutFlow(harness)
        try await flow.pay(
            try await flow.start("platform=android&storefront=USA&external_transaction_token=\(harness.google.issueExternalTransactionToken())"))
        await flow.sendReports()
        let renewal = try await flow.renew()
        await flow.sendReports()
        try await flow.refund(invoiceID: renewal, amount: 300)
        harness.google.failExternalTransactions([400])

        await flow.sendReports()
        func get(_ query: String) async -> (Int, [String: Any]) {
            let response = await harness.app.send(.get, "/admin/v1/reports" + query, headers: TestApp.adminHeaders)
            return (response.status.code, response.jsonObject ?? [:])
        }
        // The harness clock starts on 2027-01-15; the renewal and the refund come 30 days later.
        let (status, january) = await get("?month=2027-01")
        #expect(status == 200)
        #expect(january["month"] as? String == "2027-01" && january["count"] as? Int == 1)
        let first = try #require((january["reports"] as? [[String: Any]])?.first)
        #expect(first["kind"] as? String == "purchase" && first["status"] as? String == "sent" && first["platform"] as? String == "google")
        #expect(first["storefront"] as? String == "USA" && first["program"] as? String == "google_external_links")
        #expect(((first["lines"] as? [[String: Any]])?.first?["amount"]) as? Int == 999)

        let (_, february) = await get("?month=2027-02&limit=1")
        #expect(february["count"] as? Int == 2 && (february["reports"] as? [Any])?.count == 1, "the limit lists fewer, the figures count all")
        let totals = try #require((february["totals"] as? [[String: Any]])?.first)
        #expect(totals["platform"] as? String == "google" && totals["currency"] as? String == "USD")
        #expect(totals["payments"] as? Int == 1 && totals["paid_pre_tax"] as? Int == 999 && totals["paid_tax"] as? Int == 0)
        #expect(totals["refunds"] as? Int == 1 && totals["refunded_pre_tax"] as? Int == 300)
        #expect((totals["statuses"] as? [String: Any])?["failed"] as? Int == 1, "Google refused the refund")
        let refund = try #require(
            try await harness.app.app.database.read { try $0.queryOne("SELECT last_error FROM link_out_reports WHERE kind = 'refund'") })
        #expect(try refund.optionalString("last_error")?.contains("400") == true)

        let metrics = await harness.app.send(.get, "/metrics").text
        #expect(metrics.contains(#"tollgate_link_out_reports{platform="google",status="sent"} 2"#), "\(metrics.suffix(800))")
        #expect(metrics.contains(#"tollgate_link_out_reports{platform="google",status="failed"} 1"#))
        #expect(metrics.contains(#"tollgate_link_out_oldest_pending_seconds{platform="google"} 0"#), "nothing waits")

        #expect(await get("?month=2027-13").0 == 400)
        #expect(await get("?month=27-01").0 == 400)
        #expect(await get("").0 == 200, "no month: the current one")
        #expect(await harness.app.send(.get, "/admin/v1/reports").status.code == 401)
        await harness.stop()
    }
}
