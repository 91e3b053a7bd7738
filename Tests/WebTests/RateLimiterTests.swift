import Foundation
import Testing

@testable import Web

@Suite("Failure rate limiter")
struct RateLimiterTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("Past the limit a key waits until its own window ends; then it starts afresh")
    func limitAndRetryAfter() {
        let limiter = RateLimiter()
        for _ in 0..<3 { limiter.record("redeem:1.2.3.4", window: 60, now: start) }
        #expect(limiter.retryAfter("redeem:1.2.3.4", limit: 4, now: start) == nil)
        limiter.record("redeem:1.2.3.4", window: 60, now: start.addingTimeInterval(10))
        #expect(limiter.retryAfter("redeem:1.2.3.4", limit: 4, now: start.addingTimeInterval(10)) == 50)
        #expect(limiter.retryAfter("redeem:1.2.3.4", limit: 4, now: start.addingTimeInterval(59.2)) == 1)
        #expect(limiter.retryAfter("redeem:5.6.7.8", limit: 4, now: start.addingTimeInterval(10)) == nil)
        #expect(limiter.retryAfter("redeem:1.2.3.4", limit: 4, now: start.addingTimeInterval(60)) == nil)
        limiter.record("redeem:1.2.3.4", window: 60, now: start.addingTimeInterval(61))
        #expect(limiter.retryAfter("redeem:1.2.3.4", limit: 1, now: start.addingTimeInterval(61)) == 60)
        #expect(limiter.retryAfter("redeem:1.2.3.4", limit: 2, now: start.addingTimeInterval(61)) == nil)
    }

    @Test("A flood of distinct keys stays within 1.5× capacity, prunes in amortized O(1), and keeps the newest limits")
    func floodOfKeys() {
        let limiter = RateLimiter(capacity: 1_600)
        let keys = 50_000
        for index in 0..<keys {
            limiter.record("redeem:flood-\(index)", window: 60, now: start.addingTimeInterval(Double(index) / 1_000))
            if index % 1_000 == 0 { #expect(limiter.usage.keys <= 2_400) }
        }
        let usage = limiter.usage
        #expect(usage.keys <= 2_400)
        #expect(usage.prunes > 0)
        // Pruning walks a shard's keys: a few walked per key added, not the whole table each time.
        #expect(usage.walked <= 8 * keys, "walked \(usage.walked)")
        // The newest keys are still limited; the oldest were let go to bound memory.
        let end = start.addingTimeInterval(50)
        #expect(limiter.retryAfter("redeem:flood-\(keys - 1)", limit: 1, now: end) != nil)
        #expect(limiter.retryAfter("redeem:flood-0", limit: 1, now: end) == nil)
    }

    @Test("Pruning drops ended windows by each key's own length: a long sign-in window outlives a flood of short ones")
    func pruningHonoursEachWindow() {
        let limiter = RateLimiter(capacity: 1_600)
        for _ in 0..<5 { limiter.record("login:victim@example.com", window: 900, now: start) }
        for index in 0..<6_000 {
            limiter.record("redeem:short-\(index)", window: 10, now: start.addingTimeInterval(20 + Double(index) / 100))
        }
        #expect(limiter.usage.prunes > 0)
        #expect(limiter.retryAfter("login:victim@example.com", limit: 5, now: start.addingTimeInterval(30)) == 870)
    }
}
