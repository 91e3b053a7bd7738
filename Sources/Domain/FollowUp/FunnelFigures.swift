import Foundation

/// The redemption funnel of a cohort of web purchases (API.md "The funnel"): how many were paid,
/// had their success page (or redirect) served, were first redeemed or linked (and how soon), and
/// how many paid over 24 h ago are still not redeemed nor refunded. A pure rule over the cohort.
public struct FunnelFigures: Sendable, Equatable {
    public let paid: Int
    public let successPageSeen: Int
    public let redeemed: Int
    /// Redeemed within 5 minutes, 1 hour and 24 hours of payment.
    public let redeemedWithin5m: Int
    public let redeemedWithin1h: Int
    public let redeemedWithin24h: Int
    /// The median of the seconds from payment to first redemption; nil when none was redeemed.
    public let medianSecondsToRedeem: Double?
    public let unredeemedOver24h: Int

    /// The figures of `cohort` as of `now`.
    public init(cohort: [BuyerJourneyRepository.CohortRow], now: Date) {
        paid = cohort.count
        successPageSeen = cohort.filter { $0.successSeenAt != nil }.count
        // Whole milliseconds, as stored: no floating-point residue at a bucket's edge.
        let seconds = cohort.compactMap { row in row.linkedAt.map { (max(0, $0.timeIntervalSince(row.paidAt)) * 1000).rounded() / 1000 } }.sorted()
        redeemed = seconds.count
        redeemedWithin5m = seconds.filter { $0 <= 300 }.count
        redeemedWithin1h = seconds.filter { $0 <= 3600 }.count
        redeemedWithin24h = seconds.filter { $0 <= 86_400 }.count
        medianSecondsToRedeem = Self.median(seconds)
        unredeemedOver24h = cohort.filter { $0.linkedAt == nil && !$0.refunded && now.timeIntervalSince($0.paidAt) > 86_400 }.count
    }

    /// The middle value of sorted `values` (the mean of the two middle ones for an even count).
    static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let middle = values.count / 2
        return values.count % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2
    }
}
