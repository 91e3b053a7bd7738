import Domain
import Foundation
import Storage

extension LinkOutReportWorker {
    /// Queues a report without line items for each Apple token made more than
    /// `LinkOutReporting.unpurchasedAfter` ago that led to no purchase and has no report (one batch);
    /// returns how many. Any instance may run it: a report is queued once whoever runs it.
    @discardableResult
    public func queueUnpurchased() async -> Int {
        let now = self.now()
        let batch = configuration.unpurchasedBatch
        do {
            let queued = try await database.write { connection in
                try LinkOutReporting.queueUnpurchased(
                    before: now.addingTimeInterval(-LinkOutReporting.unpurchasedAfter), limit: batch, on: connection, now: now)
            }
            if queued > 0 { logger.info("link_out.unpurchased_queued", [("count", .int(queued))]) }
            return queued
        } catch {
            logger.error("link_out.unpurchased_failed", [("error", .string("\(error)"))])
            return 0
        }
    }

    /// Runs `queueUnpurchased()` when `unpurchasedInterval` has passed since it last ran.
    func queueUnpurchasedIfDue() async {
        let now = self.now()
        let interval = configuration.unpurchasedInterval
        let due = lastUnpurchasedLook.withLock { last -> Bool in
            guard last.map({ now.timeIntervalSince($0) >= interval }) ?? true else { return false }
            last = now
            return true
        }
        if due { await queueUnpurchased() }
    }
}
