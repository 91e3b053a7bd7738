import Foundation
import Testing
@testable import Configuration

/// `rate_limits`: every bucket's budget (`limit` per `window_seconds`) defaults to the table's,
/// can be set in the file or the environment, and a bad value or an unknown bucket stops
/// start-up naming the key.
@Suite("rate_limits")
struct ConfigRateLimitsTests {
    @Test("Unset: the table's budgets; set in the file or the environment, as given, other buckets untouched")
    func configured() throws {
        let defaults = try load(json: Fixtures.json()).rateLimits.budgets
        #expect(defaults["redeem_user"] == .init(limit: 10, windowSeconds: 600))
        #expect(defaults["redeem"] == .init(limit: 300, windowSeconds: 600))
        #expect(defaults["login"] == .init(limit: 10, windowSeconds: 900))
        #expect(defaults.count == TollgateConfig.RateLimits.table.count)
        let file = try load(json: Fixtures.json(["rate_limits": ["redeem_user": ["limit": 3, "window_seconds": 60]]])).rateLimits.budgets
        #expect(file["redeem_user"] == .init(limit: 3, windowSeconds: 60))
        #expect(file["redeem"] == .init(limit: 300, windowSeconds: 600))
        let environment = try load(json: Fixtures.json(), environment: ["TOLLGATE_RATE_LIMITS_LOGIN_WINDOW_SECONDS": "120"]).rateLimits.budgets
        #expect(environment["login"] == .init(limit: 10, windowSeconds: 120))
    }

    @Test("Zero, negative or not a number: start-up refuses, naming the key", arguments: ["0", "-5", "\"ten\"", "1.5"])
    func badValue(_ value: String) {
        let json = String(Fixtures.json().dropLast()) + #", "rate_limits": {"resend": {"limit": \#(value), "window_seconds": \#(value)}}}"#
        let found = problems(json: json)
        #expect(problem("rate_limits.resend.limit", in: found) != nil)
        #expect(problem("rate_limits.resend.window_seconds", in: found) != nil)
    }

    @Test("An unknown bucket or field is refused, naming the key")
    func unknownBucket() {
        let found = problems(json: Fixtures.json(["rate_limits": ["redeem_usr": ["limit": 3], "resend": ["limt": 3]]]))
        #expect(problem("rate_limits.redeem_usr", in: found)?.message.contains("unknown key") == true)
        #expect(problem("rate_limits.resend.limt", in: found)?.message.contains("unknown key") == true)
    }
}
