import Foundation
import Testing
@testable import UseCases

@Suite("Event retry schedule")
struct EventRetryPolicyTests {
    @Test("About 5 s, 30 s, 2 min, 10 min, 1 h, then every 4 h, within ±20 %")
    func schedule() {
        let exact = EventRetryPolicy(random: { 0.5 })
        #expect(
            (1...7).map { exact.delay(afterAttempt: $0) } == [
                .seconds(5), .seconds(30), .seconds(120), .seconds(600), .seconds(3600), .seconds(14400), .seconds(14400)
            ])
        let low = EventRetryPolicy(random: { 0 })
        let high = EventRetryPolicy(random: { 0.999999 })
        #expect(low.delay(afterAttempt: 1) == .seconds(4))
        #expect(high.delay(afterAttempt: 2) > .seconds(35) && high.delay(afterAttempt: 2) <= .seconds(36))
    }

    @Test("Retries stop at the deadline: about 3 days is 23 attempts")
    func deadline() {
        let policy = EventRetryPolicy(random: { 0.5 })
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let deadline = start.addingTimeInterval(3 * 86400)
        var now = start
        var attempts = 1
        while let next = policy.retryAt(afterAttempt: attempts, now: now, deadline: deadline) {
            now = next
            attempts += 1
        }
        #expect(attempts == 23)
        #expect(now <= deadline && now > deadline.addingTimeInterval(-4 * 3600))
    }

    @Test("A wake-up before the wait is kept; stop ends every wait")
    func wakeSignal() async {
        let signal = WakeSignal()
        signal.notify()
        // Waits of 10 minutes: each must end long before, on a wake-up or the stop (the bounds
        // leave room for a test run that keeps both cores busy).
        let started = ContinuousClock.now
        await signal.wait(upTo: .seconds(600))
        #expect(started.duration(to: .now) < .seconds(60))
        Task {
            try? await Task.sleep(for: .milliseconds(50)); signal.notify()
        }
        await signal.wait(upTo: .seconds(600))
        await signal.wait(upTo: .milliseconds(20))
        signal.stop()
        await signal.wait(upTo: .seconds(600))
        #expect(signal.isStopped && started.duration(to: .now) < .seconds(120))
    }
}
