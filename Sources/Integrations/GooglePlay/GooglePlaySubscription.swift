import Domain
import Foundation
import JSON

/// A subscription purchase as `purchases.subscriptionsv2.get` returns it (`SubscriptionPurchaseV2`).
public struct GooglePlaySubscription: Sendable, Equatable {
    /// `subscriptionState` without its `SUBSCRIPTION_STATE_` prefix.
    public enum State: Sendable, Hashable {
        case pending, active, paused, inGracePeriod, onHold, canceled, expired, pendingPurchaseCanceled
        /// `SUBSCRIPTION_STATE_UNSPECIFIED`, a missing state, or one this code does not know (kept as sent).
        case unspecified(String)

        /// Reads the wire value (`SUBSCRIPTION_STATE_ACTIVE`, ...).
        public init(wireValue: String) {
            switch wireValue {
            case "SUBSCRIPTION_STATE_PENDING": self = .pending
            case "SUBSCRIPTION_STATE_ACTIVE": self = .active
            case "SUBSCRIPTION_STATE_PAUSED": self = .paused
            case "SUBSCRIPTION_STATE_IN_GRACE_PERIOD": self = .inGracePeriod
            case "SUBSCRIPTION_STATE_ON_HOLD": self = .onHold
            case "SUBSCRIPTION_STATE_CANCELED": self = .canceled
            case "SUBSCRIPTION_STATE_EXPIRED": self = .expired
            case "SUBSCRIPTION_STATE_PENDING_PURCHASE_CANCELED": self = .pendingPurchaseCanceled
            default: self = .unspecified(wireValue)
            }
        }
    }

    /// `acknowledgementState`.
    public enum AcknowledgementState: Sendable, Hashable {
        case pending, acknowledged
        /// `ACKNOWLEDGEMENT_STATE_UNSPECIFIED`, missing, or unknown.
        case unspecified
    }

    /// One item of `lineItems`.
    public struct LineItem: Sendable, Equatable {
        /// The subscription product id (`pro_monthly`).
        public var productID: String
        /// When access ends unless renewed (`expiryTime`).
        public var expiryTime: Date?
        /// `latestSuccessfulOrderId`.
        public var latestSuccessfulOrderID: String?
        /// `autoRenewingPlan.autoRenewEnabled`, when the item is auto-renewing.
        public var autoRenewEnabled: Bool?
        /// `offerDetails.basePlanId` (Play Billing 5+: the base plan bought, e.g. `monthly`).
        public var basePlanID: String? = nil
        /// `offerDetails.offerId`: the offer (an intro price, a free trial) it was bought with.
        public var offerID: String? = nil
        /// `deferredItemReplacement.productId`: the product it turns into at the next renewal (a
        /// downgrade or crossgrade made with the deferred replacement mode).
        public var deferredReplacementProductID: String? = nil

        /// Whether this item is `reference`: a product id, or `productId:basePlanId` (the form
        /// Play Billing 5+ integrations send), where both parts must match.
        public func matches(_ reference: String) -> Bool {
            let parts = reference.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            guard parts[0] == productID else { return false }
            return parts.count == 1 || parts[1] == basePlanID
        }
    }

    /// `subscriptionState`.
    public var state: State
    /// `lineItems`: one per product in the purchase (base plan and add-ons).
    public var lineItems: [LineItem]
    /// `acknowledgementState`.
    public var acknowledgementState: AcknowledgementState
    /// The token of the purchase this one replaces (upgrade, downgrade, re-signup).
    public var linkedPurchaseToken: String?
    /// `externalAccountIdentifiers.obfuscatedExternalAccountId`: what the app set at purchase.
    public var obfuscatedExternalAccountID: String?
    /// `startTime`: when the subscription was granted (absent while pending).
    public var startTime: Date?
    /// Whether `testPurchase` is present (a license tester's purchase).
    public var isTestPurchase: Bool
    /// `latestOrderId` (deprecated by Google; the line items' order ids replace it).
    public var latestOrderID: String?
    /// `regionCode`: the ISO 3166-1 billing country.
    public var regionCode: String?

    /// Parses a `SubscriptionPurchaseV2` JSON object.
    /// - Throws: `UpstreamError(.invalidResponse)` when it is not one (no object, bad dates).
    public init(json: [UInt8]) throws {
        func bad(_ why: String) -> UpstreamError {
            UpstreamError(service: GooglePlayClient.service, kind: .invalidResponse, message: "the subscription purchase \(why)")
        }
        guard let object = GoogleJSON.object(json) else { throw bad("is not a JSON object") }
        state = State(wireValue: object["subscriptionState"]?.stringValue ?? "")
        switch object["acknowledgementState"]?.stringValue {
        case "ACKNOWLEDGEMENT_STATE_PENDING": acknowledgementState = .pending
        case "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED": acknowledgementState = .acknowledged
        default: acknowledgementState = .unspecified
        }
        var items: [LineItem] = []
        for (index, value) in (object["lineItems"]?.arrayElements ?? []).enumerated() {
            guard let item = value.objectValue, let productID = item["productId"]?.nonEmptyString else {
                throw bad("line item \(index) has no productId")
            }
            var expiry: Date?
            if let text = item["expiryTime"]?.stringValue {
                guard let date = GoogleTimestamp.parse(text) else { throw bad("line item \(index) has an unreadable expiryTime") }
                expiry = date
            }
            let plan = item["autoRenewingPlan"], offer = item["offerDetails"]
            items.append(
                LineItem(
                    productID: productID, expiryTime: expiry, latestSuccessfulOrderID: item["latestSuccessfulOrderId"]?.nonEmptyString,
                    autoRenewEnabled: plan?["autoRenewEnabled"]?.boolValue,
                    basePlanID: offer?["basePlanId"]?.nonEmptyString, offerID: offer?["offerId"]?.nonEmptyString,
                    deferredReplacementProductID: item["deferredItemReplacement"]?["productId"]?.nonEmptyString))
        }
        lineItems = items
        linkedPurchaseToken = object["linkedPurchaseToken"]?.nonEmptyString
        obfuscatedExternalAccountID = object["externalAccountIdentifiers"]?["obfuscatedExternalAccountId"]?.nonEmptyString
        if let text = object["startTime"]?.stringValue {
            guard let date = GoogleTimestamp.parse(text) else { throw bad("has an unreadable startTime") }
            startTime = date
        } else {
            startTime = nil
        }
        isTestPurchase = object["testPurchase"]?.isObject == true
        latestOrderID = object["latestOrderId"]?.nonEmptyString
        regionCode = object["regionCode"]?.nonEmptyString
    }

    /// The line item whose access lasts longest (the latest `expiryTime`), else the first.
    public var latestLineItem: LineItem? {
        lineItems.max { ($0.expiryTime ?? .distantPast) < ($1.expiryTime ?? .distantPast) }
    }

    /// The latest `expiryTime` of all line items.
    public var expiryTime: Date? { lineItems.compactMap(\.expiryTime).max() }

    /// Whether this purchase must still be acknowledged (Google refunds it after three days
    /// otherwise): acknowledgement pending and the purchase paid for (not pending, not ended).
    public var needsAcknowledgement: Bool {
        guard acknowledgementState == .pending else { return false }
        switch state {
        case .active, .inGracePeriod, .onHold, .paused, .canceled: return true
        case .pending, .expired, .pendingPurchaseCanceled, .unspecified: return false
        }
    }

    /// The purchase status this state maps to:
    ///
    /// | `subscriptionState`          | `PurchaseStatus` | access                      |
    /// |------------------------------|------------------|-----------------------------|
    /// | `ACTIVE`                     | `.active`        | until `expiryTime`          |
    /// | `IN_GRACE_PERIOD`            | `.inGracePeriod` | until `expiryTime`          |
    /// | `CANCELED`                   | `.canceled`      | until `expiryTime` (paid)   |
    /// | `ON_HOLD`                    | `.billingRetry`  | none                        |
    /// | `PAUSED`                     | `.paused`        | none                        |
    /// | `EXPIRED`                    | `.expired`       | none                        |
    /// | `PENDING`                    | `.pending`       | none (not paid yet)         |
    /// | `PENDING_PURCHASE_CANCELED`  | `.expired`       | none (never paid)           |
    /// | unspecified / unknown        | `.pending`       | none until Google says more |
    public var status: PurchaseStatus {
        switch state {
        case .active: .active
        case .inGracePeriod: .inGracePeriod
        case .canceled: .canceled
        case .onHold: .billingRetry
        case .paused: .paused
        case .expired, .pendingPurchaseCanceled: .expired
        case .pending, .unspecified: .pending
        }
    }

    /// The domain's view of this purchase: keyed by `purchaseToken`, product = the latest line
    /// item's, `expiresAt` = the latest `expiryTime`, `ownerHint` = the obfuscated account id,
    /// `supersedesExternalID` = `linkedPurchaseToken`, environment `test` for test purchases else
    /// `production`; status per the table on `status`. `willRenew` is the latest item's
    /// `autoRenewEnabled`, `renewsToProductID` its deferred replacement, `offerType` its offer id.
    public func snapshot(purchaseToken: String, observedAt: Date) -> PurchaseSnapshot {
        let latest = latestLineItem
        var snapshot = PurchaseSnapshot(
            platform: .playStore, externalID: purchaseToken, productID: latest?.productID ?? "", status: status,
            expiresAt: expiryTime, environment: isTestPurchase ? "test" : "production", observedAt: observedAt,
            ownerHint: obfuscatedExternalAccountID, supersedesExternalID: linkedPurchaseToken,
            transactionID: latestOrderID ?? latest?.latestSuccessfulOrderID)
        if let latest, let autoRenew = latest.autoRenewEnabled {
            snapshot.willRenew = autoRenew
            if autoRenew, let next = latest.deferredReplacementProductID, next != latest.productID { snapshot.renewsToProductID = next }
        }
        snapshot.offerType = latest?.offerID
        return snapshot
    }
}
