import Foundation

/// The run/stop/wake loop of a background worker: a pass, then, unless the pass left work
/// waiting, a sleep that ends at the first of `wake()`, `stop()`, the time the worker asks for,
/// or the task's cancellation; again until stopped. A stop or a cancellation lets the pass in
/// progress finish (what it claimed is handled and recorded) and ends the loop before the next.
final class WorkLoop: Sendable {
    private let signal = WakeSignal()

    /// True once `stop()` was called or the running task was cancelled.
    var isStopped: Bool { signal.isStopped }

    /// Makes `run` return after the pass in progress.
    func stop() { signal.stop() }

    /// Ends the sleep: work was queued.
    func wake() { signal.notify() }

    /// A sleep until the next item falls due (`nextDue`, read from the queue), at most `poll`;
    /// `poll` when nothing is due or the queue cannot be read.
    static func sleep(untilDue nextDue: () async throws -> Date?, now: () -> Date, atMost poll: Duration) async -> Duration {
        guard let due = try? await nextDue() else { return poll }
        return min(poll, .milliseconds(max(0, Int64(due.timeIntervalSince(now()) * 1000))))
    }

    /// Runs passes until `stop()` or cancellation.
    /// - Parameters:
    ///   - delay: a sleep before the first pass (none by default).
    ///   - pass: one pass; returns true when work is still waiting, so the next comes at once.
    ///   - sleep: the longest sleep after a pass that left nothing waiting.
    func run(after delay: Duration = .zero, pass: () async -> Bool, sleep: () async -> Duration) async {
        await withTaskCancellationHandler {
            if delay > .zero { await signal.wait(upTo: delay) }
            while !signal.isStopped {
                if await pass() || signal.isStopped { continue }
                await signal.wait(upTo: await sleep())
            }
        } onCancel: {
            stop()
        }
    }
}
