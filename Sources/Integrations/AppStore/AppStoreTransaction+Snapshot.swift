import Domain
import Foundation

extension AppStoreTransaction {
    /// What this transaction says about the purchase, keyed by `originalTransactionID`.
    ///
    /// Status, first rule that applies:
    ///
    /// | input | status | `expiresAt` |
    /// | --- | --- | --- |
    /// | `revocationDate` set, `revocationReason` set, not family-shared | `refunded` | `expiresDate` |
    /// | `revocationDate` set otherwise (Family Sharing revocation) | `revoked` | `expiresDate` |
    /// | `subscriptionStatus` 1 (active) | `active` (see below) | `expiresDate` |
    /// | `subscriptionStatus` 2 (expired) | `expired` | `expiresDate` |
    /// | `subscriptionStatus` 3 (billing retry) | `billingRetry` | `expiresDate` |
    /// | `subscriptionStatus` 4 (grace period) | `inGracePeriod` | grace period end, else `expiresDate` |
    /// | `subscriptionStatus` 5 (revoked) | `revoked` | `expiresDate` |
    /// | no `expiresDate` (consumable, non-consumable, non-renewing) | `active` | nil |
    ///
    /// With renewal info, `willRenew` is its `autoRenewStatus` and `renewsToProductID` its
    /// `autoRenewProductId` when that is another product (a pending downgrade); `offerType` names
    /// the transaction's `offerType`. A non-renewing subscription also carries its purchase date (`nonRenewingPurchasedAt`), from
    /// which `ProductDurations` sets its expiry; a consumable too (`consumablePurchasedAt`), used
    /// when a duration is configured for it.
    /// | `expiresDate` in the future | `active` (see below) | `expiresDate` |
    /// | expired, renewal info in billing retry with a grace period ending after `now` | `inGracePeriod` | grace period end |
    /// | expired, renewal info in billing retry | `billingRetry` | `expiresDate` |
    /// | expired | `expired` | `expiresDate` |
    ///
    /// `active` becomes `canceled` when the renewal info's `autoRenewStatus` is 0 (paid until
    /// `expiresAt`, will not renew), else `trialing` for a free-trial offer (`offerDiscountType`
    /// `FREE_TRIAL`). `observedAt` is `signedDate` (else `now`), `ownerHint` the lowercased
    /// `appAccountToken`, `transactionID` the `transactionId`.
    /// - Parameters:
    ///   - renewalInfo: The subscription's verified renewal info, if known.
    ///   - subscriptionStatus: A notification's `data.status`, if known.
    ///   - now: The time against which `expiresDate` is compared.
    /// - Throws: `AppStoreError.verification` (`.missingField`) if the transaction has no
    ///   `originalTransactionId` or `productId`.
    public func snapshot(renewalInfo: AppStoreRenewalInfo? = nil, subscriptionStatus: Int? = nil, now: Date = Date()) throws -> PurchaseSnapshot {
        // Called on verified data: what is missing is said as missing, never as "does not verify".
        guard let originalTransactionID, !originalTransactionID.isEmpty else {
            let alsoMissing = (transactionID ?? "").isEmpty ? " (nor a transactionId)" : ""
            throw AppStoreError.verification(.init(.missingField, "the signed transaction verifies but has no originalTransactionId\(alsoMissing)"))
        }
        guard let productID, !productID.isEmpty else {
            throw AppStoreError.verification(.init(.missingField, "the signed transaction verifies but has no productId"))
        }
        let (status, expiresAt) = purchaseStatus(renewalInfo: renewalInfo, subscriptionStatus: subscriptionStatus, now: now)
        var snapshot = PurchaseSnapshot(
            platform: .appStore, externalID: originalTransactionID, productID: productID, status: status,
            expiresAt: expiresAt, environment: environment, observedAt: signedDate ?? now,
            ownerHint: appAccountToken?.lowercased(), transactionID: transactionID)
        if let renewal = renewalInfo, let autoRenew = renewal.autoRenewStatus {
            snapshot.willRenew = autoRenew == 1
            // A pending downgrade or crossgrade renews into another product at the period's end.
            if autoRenew == 1, let next = renewal.autoRenewProductID, next != productID { snapshot.renewsToProductID = next }
        }
        snapshot.offerType = offerType.flatMap { Self.offerTypeNames[$0] }
        if expiresDate == nil, revocationDate == nil {
            switch type {
            case Self.nonRenewingType: snapshot.nonRenewingPurchasedAt = purchaseDate ?? signedDate ?? now
            case Self.consumableType: snapshot.consumablePurchasedAt = purchaseDate ?? signedDate ?? now
            default: break
            }
        }
        return snapshot
    }

    /// `offerType`: 1 introductory, 2 promotional, 3 offer code, 4 win-back.
    static let offerTypeNames: [Int: String] = [1: "introductory", 2: "promotional", 3: "offer_code", 4: "win_back"]

    /// The `type` of a non-renewing subscription: no `expiresDate`, its duration is the app's.
    public static let nonRenewingType = "Non-Renewing Subscription"
    /// The `type` of a consumable: no `expiresDate`; a duration, when the app configures one.
    public static let consumableType = "Consumable"

    /// The status rule of `snapshot`, shared with notifications.
    func purchaseStatus(renewalInfo: AppStoreRenewalInfo?, subscriptionStatus: Int?, now: Date) -> (PurchaseStatus, Date?) {
        if revocationDate != nil {
            let refunded = revocationReason != nil && inAppOwnershipType != "FAMILY_SHARED"
            return (refunded ? .refunded : .revoked, expiresDate)
        }
        let graceEnd = renewalInfo?.gracePeriodExpiresDate
        switch subscriptionStatus {
        case 1: return (runningStatus(renewalInfo), expiresDate)
        case 2: return (.expired, expiresDate)
        case 3: return (.billingRetry, expiresDate)
        case 4: return (.inGracePeriod, graceEnd ?? expiresDate)
        case 5: return (.revoked, expiresDate)
        default: break
        }
        guard let expiresDate else { return (.active, nil) }
        if expiresDate > now { return (runningStatus(renewalInfo), expiresDate) }
        if renewalInfo?.isInBillingRetryPeriod == true {
            if let graceEnd, graceEnd > now { return (.inGracePeriod, graceEnd) }
            return (.billingRetry, expiresDate)
        }
        return (.expired, expiresDate)
    }

    /// A paid, running purchase: canceled when it will not renew, trialing in a free trial.
    private func runningStatus(_ renewalInfo: AppStoreRenewalInfo?) -> PurchaseStatus {
        if renewalInfo?.autoRenewStatus == 0 { return .canceled }
        if offerDiscountType == "FREE_TRIAL" { return .trialing }
        return .active
    }
}
