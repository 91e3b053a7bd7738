import Domain
import Foundation

/// One in-app purchase of a receipt that `verifyReceipt` accepted (the newest item of its
/// `original_transaction_id`), with its renewal state. The one `VerifyReceiptClient.verify`
/// returns is the receipt's newest purchase and carries the others in `otherPurchases`.
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
    /// Every `transaction_id` the receipt holds for this `original_transaction_id` (each period,
    /// each restore), so a StoreKit 1 transaction id finds its purchase.
    public var transactionIDs: Set<String> = []
    /// `purchase_date_ms`: when this item (the current period, for a subscription) was bought.
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
    /// `pending_renewal_info.auto_renew_product_id`: the product it renews into.
    public var autoRenewProductID: String?
    /// `pending_renewal_info.is_in_billing_retry_period`.
    public var isInBillingRetryPeriod: Bool?
    /// `pending_renewal_info.grace_period_expires_date_ms`.
    public var gracePeriodExpiresDate: Date?
    /// `receipt.request_date_ms`: when Apple answered.
    public var requestDate: Date?
    /// The receipt's other purchases, newest first, one per `original_transaction_id` (each
    /// with its own newest item and renewal state); empty in each of them.
    public var otherPurchases: [VerifiedReceipt] = []

    /// A purchase with the given members.
    public init(
        environment: String, bundleID: String, productID: String, originalTransactionID: String, transactionID: String? = nil,
        purchaseDate: Date? = nil, expiresDate: Date? = nil, cancellationDate: Date? = nil, cancellationReason: String? = nil,
        inAppOwnershipType: String? = nil, isTrialPeriod: Bool = false, autoRenewStatus: Int? = nil, autoRenewProductID: String? = nil,
        isInBillingRetryPeriod: Bool? = nil, gracePeriodExpiresDate: Date? = nil, requestDate: Date? = nil
    ) {
        self.environment = environment
        self.bundleID = bundleID
        self.productID = productID
        self.originalTransactionID = originalTransactionID
        self.transactionID = transactionID
        self.purchaseDate = purchaseDate
        self.expiresDate = expiresDate
        self.cancellationDate = cancellationDate
        self.cancellationReason = cancellationReason
        self.inAppOwnershipType = inAppOwnershipType
        self.isTrialPeriod = isTrialPeriod
        self.autoRenewStatus = autoRenewStatus
        self.autoRenewProductID = autoRenewProductID
        self.isInBillingRetryPeriod = isInBillingRetryPeriod
        self.gracePeriodExpiresDate = gracePeriodExpiresDate
        self.requestDate = requestDate
    }

    /// Whether `id` is this purchase's original transaction id or one of its transactions' ids.
    public func holds(transactionID id: String) -> Bool {
        id == originalTransactionID || id == transactionID || transactionIDs.contains(id)
    }

    /// This purchase followed by `otherPurchases`: every purchase of the receipt, newest first.
    public var allPurchases: [VerifiedReceipt] { [self] + otherPurchases }

    /// What the receipt says about this purchase, keyed by `originalTransactionID`.
    ///
    /// | input | status |
    /// | --- | --- |
    /// | `cancellation_date` with a reason, not family-shared | `refunded` |
    /// | `cancellation_date` otherwise | `revoked` |
    /// | no `expires_date_ms`, `durations` names the product | `active` until purchase + days (`expired` once past) |
    /// | no `expires_date_ms` | `active`, no expiry |
    /// | expiry in the future, `auto_renew_status` 0 | `canceled` |
    /// | expiry in the future, `is_trial_period` | `trialing` |
    /// | expiry in the future | `active` |
    /// | expired, in billing retry, grace period ending after `now` | `inGracePeriod` (until the grace end) |
    /// | expired, in billing retry | `billingRetry` |
    /// | expired | `expired` |
    ///
    /// An item with no `expires_date_ms` is a non-consumable, a non-renewing subscription or a
    /// consumable (a receipt does not say which): `products_duration_days` (`durations`), when it
    /// names the product, gives it its expiry from `purchase_date_ms`, as on the StoreKit 2 path;
    /// otherwise it does not expire. With a `pending_renewal_info` entry, `willRenew` is
    /// `auto_renew_status` 1 and `renewsToProductID` its `auto_renew_product_id` when that is
    /// another product. `observedAt` is `request_date_ms`, else `now`.
    public func snapshot(now: Date = Date(), durations: ProductDurations = ProductDurations(days: [:])) -> PurchaseSnapshot {
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
        var snapshot = PurchaseSnapshot(
            platform: .appStore, externalID: originalTransactionID, productID: productID, status: status,
            expiresAt: expiresAt, environment: environment, observedAt: requestDate ?? now, transactionID: transactionID)
        if let autoRenewStatus {
            snapshot.willRenew = autoRenewStatus == 1
            if autoRenewStatus == 1, let next = autoRenewProductID, !next.isEmpty, next != productID { snapshot.renewsToProductID = next }
        }
        if expiresDate == nil, cancellationDate == nil, durations.days[productID] != nil {
            snapshot.nonRenewingPurchasedAt = purchaseDate ?? requestDate ?? now
            // The product has a duration, so `applied` cannot throw `Missing`.
            snapshot = (try? durations.applied(to: snapshot, now: now)) ?? snapshot
        }
        return snapshot
    }
}
