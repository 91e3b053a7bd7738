@testable import Domain
import Foundation
import Testing

@testable import UseCases

/// Where a catch-up read starts and ends, and what it leaves for the next run.
@Suite("Reconciler: the catch-up window")
struct CatchUpWindowTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let limits = ReconcileLimits(firstLookback: 72 * 3600, overlap: 300)

    static func entry(cursor: TimeInterval?, token: String? = nil, windowEnd: TimeInterval? = nil) -> ReconcileLedger.Entry {
        ReconcileLedger.Entry(
            provider: "play_store", cursorAt: cursor.map { now.addingTimeInterval($0) }, pageToken: token,
            windowEnd: windowEnd.map { now.addingTimeInterval($0) }, claimedBy: nil, claimedUntil: nil, lastRunAt: nil, lastOutcome: nil,
            lastError: nil, lastChecked: 0, lastChanges: 0, runs: 0, checkedTotal: 0, changesTotal: 0)
    }

    @Test("First run: 72 h back; later: from the cursor; never before what the provider keeps; --since wins")
    func start() {
        let first = CatchUpWindow(from: nil, since: nil, now: Self.now, keptFor: 30 * 86_400, limits: Self.limits)
        #expect(first.start == Self.now.addingTimeInterval(-72 * 3600) && first.end == Self.now && first.token == nil)
        let later = CatchUpWindow(from: Self.entry(cursor: -900), since: nil, now: Self.now, keptFor: 30 * 86_400, limits: Self.limits)
        #expect(later.start == Self.now.addingTimeInterval(-900))
        let stale = CatchUpWindow(from: Self.entry(cursor: -90 * 86_400), since: nil, now: Self.now, keptFor: 30 * 86_400, limits: Self.limits)
        #expect(stale.start == Self.now.addingTimeInterval(-30 * 86_400 + 60))
        let since = CatchUpWindow(
            from: Self.entry(cursor: -900, token: "t2", windowEnd: -600), since: Self.now.addingTimeInterval(-7200), now: Self.now,
            keptFor: 30 * 86_400, limits: Self.limits)
        #expect(since.start == Self.now.addingTimeInterval(-7200) && since.token == nil && since.end == Self.now)
    }

    @Test("A window a bounded run left part way is read on from its token, to its own end, and keeps its start until done")
    func unfinished() {
        var window = CatchUpWindow(
            from: Self.entry(cursor: -3600, token: "page-7", windowEnd: -1800), since: nil, now: Self.now, keptFor: 30 * 86_400,
            limits: Self.limits)
        #expect(window.token == "page-7" && window.end == Self.now.addingTimeInterval(-1800))
        let partWay = window.record(outcome: "ok", checked: 10, changes: 1, overlap: 300)
        #expect(partWay.cursorAt == Self.now.addingTimeInterval(-3600) && partWay.pageToken == "page-7" && partWay.windowEnd == window.end)
        window.token = nil
        let done = window.record(outcome: "ok", checked: 10, changes: 1, overlap: 300)
        #expect(done.cursorAt == Self.now.addingTimeInterval(-1800 - 300) && done.pageToken == nil && done.windowEnd == nil)
        struct Down: Error {}
        let outage = window.unavailable(Down(), checked: 2, changes: 0)
        #expect(outage.outcome == "unavailable" && outage.cursorAt == window.start)
    }
}
