import Domain
import Foundation
import Storage

/// The redemption funnel (`GET /admin/v1/funnel`, `tollgate admin funnel`, the console): the web
/// purchases paid within a window and how far each got; and the time-to-redeem histogram, fed
/// from the first redemptions this instance takes to observe.
public struct FunnelReport: Sendable {
    /// A window's figures.
    public struct Report: Sendable, Equatable {
        public let window: FunnelWindow
        public let figures: FunnelFigures
    }

    let database: Database
    /// The histogram this instance reports on `/metrics`.
    public let times: RedemptionTimes

    public init(database: Database, times: RedemptionTimes = RedemptionTimes()) {
        self.database = database
        self.times = times
    }

    /// The funnel of the web purchases whose provider payment time is in `[now − window, now]`.
    /// - Throws: `StorageError`.
    public func report(since window: FunnelWindow, now: Date) async throws -> Report {
        let cohort = try await database.read { connection in
            try BuyerJourneyRepository.cohort(from: now.addingTimeInterval(-window.seconds), to: now, on: connection)
        }
        return Report(window: window, figures: FunnelFigures(cohort: cohort, now: now))
    }

    /// The web purchases of the window paid over 24 h ago and still neither redeemed, linked nor
    /// refunded, oldest first (the console's "paid but not redeemed" list).
    /// - Throws: `StorageError`.
    public func unredeemed(since window: FunnelWindow, now: Date, limit: Int = 100) async throws -> [Purchase] {
        let purchases = try await database.read { connection in
            try BuyerJourneyRepository.unredeemed(
                paidFrom: now.addingTimeInterval(-window.seconds), to: now.addingTimeInterval(-86_400), limit: limit, on: connection)
        }
        return purchases.filter { $0.status != .refunded && $0.status != .revoked }
    }

    /// Observes the first redemptions no instance has observed yet into `times` (a batch at a
    /// time, each once across instances); returns how many.
    /// - Throws: `StorageError`.
    @discardableResult
    public func observeRedemptions(batch: Int = 500) async throws -> Int {
        var total = 0
        while true {
            let seconds = try await database.write(isolation: .readCommitted) {
                try BuyerJourneyRepository.takeUnobservedRedemptions(limit: batch, on: $0)
            }
            times.observe(seconds)
            total += seconds.count
            if seconds.count < batch { return total }
        }
    }
}
