import Domain
import Foundation

extension AppStoreNotification {
    /// The notification types Tollgate knows; others decode but change nothing.
    public enum NotificationType: String, Sendable, CaseIterable {
        case subscribed = "SUBSCRIBED", didRenew = "DID_RENEW", didFailToRenew = "DID_FAIL_TO_RENEW"
        case gracePeriodExpired = "GRACE_PERIOD_EXPIRED", expired = "EXPIRED", refund = "REFUND", revoke = "REVOKE"
        case didChangeRenewalStatus = "DID_CHANGE_RENEWAL_STATUS", didChangeRenewalPref = "DID_CHANGE_RENEWAL_PREF"
        case offerRedeemed = "OFFER_REDEEMED", renewalExtended = "RENEWAL_EXTENDED", refundReversed = "REFUND_REVERSED"
        case oneTimeCharge = "ONE_TIME_CHARGE", test = "TEST", consumptionRequest = "CONSUMPTION_REQUEST"
        case priceIncrease = "PRICE_INCREASE", refundDeclined = "REFUND_DECLINED", renewalExtension = "RENEWAL_EXTENSION"
        case externalPurchaseToken = "EXTERNAL_PURCHASE_TOKEN", metadataUpdate = "METADATA_UPDATE", migration = "MIGRATION"
        case priceChange = "PRICE_CHANGE", rescindConsent = "RESCIND_CONSENT"

        /// Whether a notification of this type changes the purchase's state.
        public var changesState: Bool {
            switch self {
            case .subscribed, .didRenew, .didFailToRenew, .gracePeriodExpired, .expired, .refund, .revoke,
                .didChangeRenewalStatus, .didChangeRenewalPref, .offerRedeemed, .renewalExtended, .refundReversed,
                .oneTimeCharge:
                true
            case .test, .consumptionRequest, .priceIncrease, .refundDeclined, .renewalExtension, .externalPurchaseToken,
                .metadataUpdate, .migration, .priceChange, .rescindConsent:
                false
            }
        }
    }

    /// The known type, or nil for a type this version does not know.
    public var type: NotificationType? { NotificationType(rawValue: notificationType) }

    /// Whether this is the `TEST` notification (acknowledge with 200, store nothing).
    public var isTest: Bool { type == .test }

    /// What the notification means for the purchase, or nil when it changes nothing.
    ///
    /// | type (subtype) | effect |
    /// | --- | --- |
    /// | `SUBSCRIBED` (`INITIAL_BUY`, `RESUBSCRIBE`) | active (trialing for a free trial) until `expiresDate` |
    /// | `DID_RENEW` (`BILLING_RECOVERY`) | active, new `expiresDate` |
    /// | `DID_FAIL_TO_RENEW` (`GRACE_PERIOD`) | in grace period until `gracePeriodExpiresDate` |
    /// | `DID_FAIL_TO_RENEW` (none) | billing retry: no access while Apple retries |
    /// | `GRACE_PERIOD_EXPIRED` | billing retry |
    /// | `EXPIRED` (`VOLUNTARY`, `BILLING_RETRY`, `PRICE_INCREASE`, `PRODUCT_NOT_FOR_SALE`) | expired |
    /// | `REFUND` | refunded (always, whatever `data.status` says) |
    /// | `REVOKE` | revoked (Family Sharing access withdrawn; always) |
    /// | `DID_CHANGE_RENEWAL_STATUS` (`AUTO_RENEW_DISABLED`) | canceled: paid until `expiresDate`, no renewal |
    /// | `DID_CHANGE_RENEWAL_STATUS` (`AUTO_RENEW_ENABLED`) | active again |
    /// | `DID_CHANGE_RENEWAL_PREF` (`UPGRADE`, `DOWNGRADE`) | the transaction's current state and product |
    /// | `OFFER_REDEEMED`, `RENEWAL_EXTENDED`, `REFUND_REVERSED`, `ONE_TIME_CHARGE` | the transaction's current state |
    /// | `TEST` | nil: acknowledged, no state |
    /// | `CONSUMPTION_REQUEST`, `PRICE_INCREASE`, `REFUND_DECLINED`, `RENEWAL_EXTENSION` (summary), `METADATA_UPDATE`, `MIGRATION`, `PRICE_CHANGE`, `RESCIND_CONSENT`, `EXTERNAL_PURCHASE_TOKEN`, unknown types | nil: nothing changes |
    ///
    /// Except for `REFUND` and `REVOKE`, a `data.status` present in the notification decides the
    /// status (the rule of `AppStoreTransaction.snapshot`); the types' own effects apply when it is
    /// absent. `observedAt` is the notification's `signedDate` so that the domain can ignore a
    /// notification older than what it already applied (they arrive out of order).
    /// Call it on a verified notification: without `data.transaction` it returns nil.
    /// - Throws: `AppStoreError.verification` (`.missingField`) if the transaction lacks its ids.
    public func snapshot(now: Date = Date()) throws -> PurchaseSnapshot? {
        guard let type, type.changesState, let data, let transaction = data.transaction else { return nil }
        var snapshot = try transaction.snapshot(renewalInfo: data.renewalInfo, subscriptionStatus: data.status, now: now)
        switch type {
        case .refund:
            snapshot.status = .refunded
        case .revoke:
            snapshot.status = .revoked
        case .didFailToRenew where data.status == nil:
            if subtype == "GRACE_PERIOD" {
                snapshot.status = .inGracePeriod
                snapshot.expiresAt = data.renewalInfo?.gracePeriodExpiresDate ?? transaction.expiresDate
            } else {
                snapshot.status = .billingRetry
            }
        case .gracePeriodExpired where data.status == nil:
            snapshot.status = .billingRetry
        case .expired where data.status == nil:
            snapshot.status = .expired
        case .didChangeRenewalStatus where subtype == "AUTO_RENEW_DISABLED":
            if snapshot.status == .active || snapshot.status == .trialing { snapshot.status = .canceled }
        default:
            break
        }
        if let signedDate { snapshot.observedAt = signedDate }
        return snapshot
    }
}
