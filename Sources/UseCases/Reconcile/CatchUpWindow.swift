import Domain
import Foundation

/// The part of a provider's history one run reads: from the stored cursor (or `since`, or the
/// first look-back) to now, never further back than the provider keeps; or, when a bounded run
/// stopped part way, the same window again from its stored page token.
struct CatchUpWindow {
    let start: Date
    let end: Date
    /// The page to continue from; nil for the window's first page, and once it is read whole.
    var token: String?

    init(from entry: ReconcileLedger.Entry?, since: Date?, now: Date, keptFor retention: TimeInterval, limits: ReconcileLimits) {
        let floor = now.addingTimeInterval(-retention + 60)
        start = max(since ?? entry?.cursorAt ?? now.addingTimeInterval(-limits.firstLookback), floor)
        // A window left unfinished keeps its end and page token (unless `since` starts over).
        token = since == nil ? entry?.pageToken : nil
        end = token != nil ? (entry?.windowEnd ?? now) : now
    }

    /// What the run leaves for the next one: a window read whole moves the cursor to a little
    /// before its end (what a provider lists late is read again); one left part way keeps its start
    /// and page token.
    func record(outcome: String, error: String? = nil, checked: Int, changes: Int, overlap: TimeInterval) -> ReconcileLedger.RunRecord {
        .init(
            outcome: outcome, error: error, checked: checked, changes: changes,
            cursorAt: token != nil ? start : max(start, end.addingTimeInterval(-overlap)), pageToken: token, windowEnd: token == nil ? nil : end)
    }

    /// `record` of a run whose read found `checked` and `changes`, followed by the lapsed pass.
    func record(checked: Int, changes: Int, then lapsed: ReconcileLapsed.Result, overlap: TimeInterval) -> ReconcileLedger.RunRecord {
        record(
            outcome: lapsed.failure == nil ? ReconcileLedger.RunRecord.ok : ReconcileLedger.RunRecord.unavailable,
            error: lapsed.failure.map { "\($0)" }, checked: checked + lapsed.checked, changes: changes + lapsed.changes, overlap: overlap)
    }

    /// The record of a run the provider's outage stopped: it starts again from the same place.
    func unavailable(_ error: any Error, checked: Int, changes: Int) -> ReconcileLedger.RunRecord {
        .init(
            outcome: ReconcileLedger.RunRecord.unavailable, error: "\(error)", checked: checked, changes: changes, cursorAt: start,
            pageToken: token, windowEnd: token == nil ? nil : end)
    }
}
