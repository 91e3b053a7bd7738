import Configuration
import Foundation
import HTTPCore
import HTTPRouting
import Testing

@testable import Web

/// The `rate_limits` table reaches the routes: a configured budget changes when a client gets
/// `429` (same error shape and `Retry-After` as the defaults), for a budget a middleware applies
/// and for one a handler applies per app user.
@Suite("Rate-limit budgets from the configuration")
struct RateLimitBudgetTests {
    @Test("Every bucket a route names has a budget in the table, and the table has no bucket no route names")
    func bucketsMatchTable() {
        #expect(Set(RateBucket.allCases.map(\.rawValue)) == Set(TollgateConfig.RateLimits.table.map(\.bucket)))
    }

    @Test("rate_limits.redeem_user: 3 failures per 60 s instead of 10 per 600 s")
    func configuredRedeemUserBudget() async throws {
        let harness = try CheckoutHarness(extra: ["rate_limits": ["redeem_user": ["limit": 3, "window_seconds": 60]]])
        for _ in 0..<3 {
            let response = await harness.redeem("ZZZZ-ZZZZ-ZZZZ-ZZZZ", client: "203.0.113.9")
            #expect(response.jsonObject?["status"] as? String == "invalid_code")
        }
        let limited = await harness.redeem("ZZZZ-ZZZZ-ZZZZ-ZZZZ", client: "203.0.113.9")
        #expect(limited.status == .tooManyRequests)
        #expect(limited.errorCode == "rate_limited")
        let wait = Int(limited.headers["Retry-After"] ?? "") ?? 0
        #expect(wait > 0 && wait <= 60, "Retry-After \(wait)")
        harness.clock.advance(61)
        #expect(await harness.redeem("ZZZZ-ZZZZ-ZZZZ-ZZZZ", client: "203.0.113.9").status == .ok)
    }

    @Test("rate_limits.resend: 2 resend requests per client instead of 5, applied by the route's middleware")
    func configuredResendBudget() async throws {
        let harness = try CheckoutHarness(extra: ["rate_limits": ["resend": ["limit": 2]]])
        var statuses: [Int] = []
        for index in 0..<3 {
            let body = Array(#"{"email": "buyer\#(index)@example.com"}"#.utf8)
            let response = await harness.app.send(
                .post, "/api/v1/codes/resend", headers: ["X-Api-Key": CheckoutHarness.apiKey, "Content-Type": "application/json"], bytes: body,
                remoteAddress: "203.0.113.20")
            statuses.append(Int(response.status.code))
            if index == 2 {
                #expect(response.errorCode == "rate_limited")
                #expect(Int(response.headers["Retry-After"] ?? "") ?? 0 > 0)
            }
        }
        #expect(statuses[0] < 400 && statuses[1] < 400 && statuses[2] == 429, "\(statuses)")
    }
}
