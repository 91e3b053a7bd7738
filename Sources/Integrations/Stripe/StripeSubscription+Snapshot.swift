import Domain
import Foundation

extension StripeSubscription {
    /// The purchase state this subscription grants, as a `PurchaseSnapshot`.
    ///
    /// | Stripe `status`                    | `PurchaseStatus` |
    /// | ---------------------------------- | ---------------- |
    /// | `active`                           | `.active`        |
    /// | `active` + `cancel_at_period_end` or `cancel_at` | `.canceled` (paid until the period end) |
    /// | `trialing`                         | `.trialing` (even when set to cancel: the trial still runs to its end) |
    /// | `past_due`, `unpaid`               | `.billingRetry`  |
    /// | `canceled`, `incomplete_expired`   | `.expired`       |
    /// | `incomplete`                       | `.pending`       |
    /// | `paused`                           | `.paused`        |
    /// | anything else (a future status)    | `.pending` (no access until understood) |
    ///
    /// `externalID` is the subscription id, `productID` the first price id, `expiresAt` the
    /// current period end (for an ended subscription, `ended_at` when it is earlier: an immediate
    /// cancellation ends access then), `environment` `live` or `test`, `customerID` the customer,
    /// `willRenew` false once it is set to cancel or has ended. (A price change scheduled with a
    /// subscription schedule is not read: it shows when Stripe applies it.)
    /// - Parameters:
    ///   - observedAt: when this state was true (the event's `created`, or the fetch time).
    ///   - purchaserEmail: the buyer's email when known (from the Checkout Session).
    public func snapshot(observedAt: Date, purchaserEmail: String?) -> PurchaseSnapshot {
        var expiresAt = currentPeriodEnd
        let status = purchaseStatus
        if status == .expired, let endedAt, endedAt < (expiresAt ?? .distantFuture) {
            expiresAt = endedAt
        }
        var snapshot = PurchaseSnapshot(
            platform: .stripe, externalID: id, productID: priceIDs.first ?? "", status: status,
            expiresAt: expiresAt, environment: livemode ? "live" : "test", observedAt: observedAt,
            purchaserEmail: purchaserEmail, customerID: customerID)
        // Set to cancel (at the period's end or at a date), or already over: no renewal.
        snapshot.willRenew = !(cancelAtPeriodEnd || cancelAt != nil || status == .expired || status == .refunded)
        return snapshot
    }

    /// The `PurchaseStatus` of the table on `snapshot(observedAt:purchaserEmail:)`.
    public var purchaseStatus: PurchaseStatus {
        switch status {
        case .active: cancelAtPeriodEnd || cancelAt != nil ? .canceled : .active
        case .trialing: .trialing
        case .pastDue, .unpaid: .billingRetry
        case .canceled, .incompleteExpired: .expired
        case .incomplete: .pending
        case .paused: .paused
        default: .pending
        }
    }
}
