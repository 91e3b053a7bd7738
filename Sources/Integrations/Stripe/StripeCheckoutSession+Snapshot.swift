import Domain
import Foundation

extension StripeCheckoutSession {
    /// The one-time purchase a `payment`-mode session stands for (subscriptions use
    /// `StripeSubscription.snapshot`); nil for other modes.
    ///
    /// | session                                   | `PurchaseStatus` |
    /// | ----------------------------------------- | ---------------- |
    /// | `complete` + `paid` / `no_payment_required` | `.active` (never expires) |
    /// | `complete` + `unpaid` (delayed payment), `open` | `.pending` |
    /// | `expired`                                 | `.expired`       |
    ///
    /// `externalID` is the payment intent id (the key `charge.refunded` carries), or the session
    /// id when nothing was charged (`no_payment_required`); `environment` `live` or `test`.
    /// - Parameters:
    ///   - productID: the price bought (the session does not list its line items).
    ///   - observedAt: when this state was true (the event's `created`, or the fetch time).
    public func paymentSnapshot(productID: String, observedAt: Date) -> PurchaseSnapshot? {
        guard mode == .payment else { return nil }
        let status: PurchaseStatus = isPaid ? .active : (self.status == .expired ? .expired : .pending)
        return PurchaseSnapshot(
            platform: .stripe, externalID: paymentIntentID ?? id, productID: productID, status: status, expiresAt: nil,
            environment: livemode ? "live" : "test", observedAt: observedAt, purchaserEmail: email, customerID: customerID,
            transactionID: id)
    }
}
