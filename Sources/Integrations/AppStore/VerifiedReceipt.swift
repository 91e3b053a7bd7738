import Domain
import Foundation

/// The newest in-app purchase of a receipt that `verifyReceipt` accepted, with its renewal state.
public struct VerifiedReceipt: Sendable, Equatable {
    /// `Production` or `Sandbox`: the endpoint that accepted the receipt.
    public var environment: String
    /// `receipt.bundle_id`.
    public var bundleID: String
    /// `product_id` of the newest item.
    public var productID: String
    /// `original_transaction_id`: the purchase's key.
    public var originalTransactionID: String
    /// `transaction_id` of the newest item.
    public var transactionID: String?
    /// `purchase_date_ms`.
    public var purchaseDate: Date?
    /// `expires_date_ms`; nil for purchases that do not expire.
    public var expiresDate: Date?
    /// `cancellation_date_ms`: refunded or revoked from Family Sharing.
    public var cancellationDate: Date?
    /// `cancellation_reason`: "1" an issue in the app, "0" another reason.
    public var cancellationReason: String?
    /// `in_app_ownership_type`: `PURCHASED` or `FAMILY_SHARED`.
    public var inAppOwnershipType: String?
    /// `is_trial_period`.
    public var isTrialPeriod: Bool
    /// `pending_renewal_info.auto_renew_status` of this subscription: 1 renews, 0 will not.
    public var autoRenewStatus: Int?
    /// `pending_renewal_info.is_in_billing_retry_period`.
    public var isInBillingRetryPeriod: Bool?
    /// `pending_renewal_info.grace_period_expires_date_ms`.
    public var gracePeriodExpiresDate: Date?
    /// `receipt.request_date_ms`: when Apple answered.
    public var requestDate: Date?

    /// What the receipt says about the purchase, keyed by `originalTransactionID`.
    ///
    /// | input | status |
    /// | --- | --- |
    /// | `cancellation_date` with a reason, not family-shared | `refunded` |
    /// | `cancellation_date` otherwise | `revoked` |
    /// | no `expires_date_ms` | `active`, no expiry |
    /// | expiry in the future, `auto_renew_status` 0 | `canceled` |
    /// | expiry in the future, `is_trial_period` | `trialing` |
    /// | expiry in the future | `active` |
    /// | expired, in billing retry, grace period ending after `now` | `inGracePeriod` (until the grace end) |
    /// | expired, in billing retry | `billingRetry` |
    /// | expired | `expired` |
    ///
    /// `observedAt` is `request_date_ms`, else `now`.
    public func snapshot(now: Date = Date()) -> PurchaseSnapshot {
        var expiresAt = expiresDate
        let status: PurchaseStatus
        if cancellationDate != nil {
            status = cancellationReason != nil && inAppOwnershipType != "FAMILY_SHARED" ? .refunded : .revoked
        } else if let expiresDate {
            if expiresDate > now {
                status = autoRenewStatus == 0 ? .canceled : (isTrialPeriod ? .trialing : .active)
            } else if isInBillingRetryPeriod == true, let grace = gracePeriodExpiresDate, grace > now {
                status = .inGracePeriod
                expiresAt = grace
            } else {
                status = isInBillingRetryPeriod == true ? .billingRetry : .expired
            }
        } else {
            status = .active
        }
        return PurchaseSnapshot(
            platform: .appStore, externalID: originalTransactionID, productID: productID, status: status,
            expiresAt: expiresAt, environment: environment, observedAt: requestDate ?? now, transactionID: transactionID)
    }
}
