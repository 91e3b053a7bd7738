import Crypto
import Foundation
import JSON

/// The members of a signed transaction the fake App Store signs (`JWSTransactionDecodedPayload`).
public struct FakeAppStoreTransaction: Sendable {
    public var transactionID: String
    public var originalTransactionID: String
    public var bundleID: String
    public var productID: String
    /// When the App Store charged for *this* transaction: a renewal's is the start of its period.
    public var purchaseDate: Date
    /// When the original transaction was bought; nil means `purchaseDate` (a first purchase).
    public var originalPurchaseDate: Date?
    /// nil for consumables, non-consumables and non-renewing subscriptions; a renewal's is the end
    /// of its own period.
    public var expiresDate: Date?
    /// The subscription group (auto-renewable subscriptions only, where Apple sends it).
    public var subscriptionGroupIdentifier: String
    /// `Auto-Renewable Subscription`, `Consumable`, `Non-Consumable`, `Non-Renewing Subscription`.
    public var type: String
    /// `Production` or `Sandbox`.
    public var environment: String
    public var appAccountToken: String?
    public var revocationDate: Date?
    public var revocationReason: Int?
    /// `PURCHASED` or `FAMILY_SHARED`.
    public var inAppOwnershipType: String
    public var signedDate: Date
    public var offerType: Int?
    /// `FREE_TRIAL`, `PAY_AS_YOU_GO`, `PAY_UP_FRONT`.
    public var offerDiscountType: String?

    /// A transaction; by default a Sandbox auto-renewable subscription of `com.example.app`.
    public init(
        transactionID: String = "2000000000000001", originalTransactionID: String = "2000000000000001",
        bundleID: String = "com.example.app", productID: String = "com.example.monthly",
        purchaseDate: Date = Date(timeIntervalSince1970: 1_700_000_000), expiresDate: Date? = nil,
        type: String = "Auto-Renewable Subscription", environment: String = "Sandbox", appAccountToken: String? = nil,
        revocationDate: Date? = nil, revocationReason: Int? = nil, inAppOwnershipType: String = "PURCHASED",
        signedDate: Date = Date(timeIntervalSince1970: 1_700_000_000), offerType: Int? = nil, offerDiscountType: String? = nil,
        originalPurchaseDate: Date? = nil, subscriptionGroupIdentifier: String = "21000001"
    ) {
        self.originalPurchaseDate = originalPurchaseDate
        self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
        self.transactionID = transactionID
        self.originalTransactionID = originalTransactionID
        self.bundleID = bundleID
        self.productID = productID
        self.purchaseDate = purchaseDate
        self.expiresDate = expiresDate
        self.type = type
        self.environment = environment
        self.appAccountToken = appAccountToken
        self.revocationDate = revocationDate
        self.revocationReason = revocationReason
        self.inAppOwnershipType = inAppOwnershipType
        self.signedDate = signedDate
        self.offerType = offerType
        self.offerDiscountType = offerDiscountType
    }

    /// Whether this is an auto-renewable subscription.
    public var isAutoRenewable: Bool { type == "Auto-Renewable Subscription" }

    /// `RENEWAL` for a later period of an auto-renewable subscription (its own transaction id),
    /// `PURCHASE` otherwise.
    public var transactionReason: String {
        isAutoRenewable && transactionID != originalTransactionID ? "RENEWAL" : "PURCHASE"
    }

    /// The payload JSON, members in the App Store's usual order.
    public var payload: JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("transactionId", .string(transactionID)), ("originalTransactionId", .string(originalTransactionID)),
            ("bundleId", .string(bundleID)), ("productId", .string(productID))
        ]
        if isAutoRenewable { members.append(("subscriptionGroupIdentifier", .string(subscriptionGroupIdentifier))) }
        members += [
            ("purchaseDate", appStoreMilliseconds(purchaseDate)),
            ("originalPurchaseDate", appStoreMilliseconds(originalPurchaseDate ?? purchaseDate))
        ]
        appendIfPresent(&members, "expiresDate", expiresDate.map(appStoreMilliseconds))
        members += [
            ("quantity", 1), ("type", .string(type)), ("inAppOwnershipType", .string(inAppOwnershipType)),
            ("signedDate", appStoreMilliseconds(signedDate)), ("environment", .string(environment)),
            ("transactionReason", .string(transactionReason)), ("storefront", "USA"), ("storefrontId", "143441")
        ]
        appendIfPresent(&members, "appAccountToken", appAccountToken.map { .string($0) })
        appendIfPresent(&members, "revocationDate", revocationDate.map(appStoreMilliseconds))
        appendIfPresent(&members, "revocationReason", revocationReason.map { .integer(Int64($0)) })
        appendIfPresent(&members, "offerType", offerType.map { .integer(Int64($0)) })
        appendIfPresent(&members, "offerDiscountType", offerDiscountType.map { .string($0) })
        return .object(members)
    }
}

/// The members of a signed renewal info the fake App Store signs (`JWSRenewalInfoDecodedPayload`).
public struct FakeAppStoreRenewalInfo: Sendable {
    public var originalTransactionID: String
    public var productID: String
    /// 1 renews, 0 turned off.
    public var autoRenewStatus: Int
    /// The product it renews into; nil means `productID` (no pending change).
    public var autoRenewProductID: String?
    public var expirationIntent: Int?
    public var gracePeriodExpiresDate: Date?
    public var isInBillingRetryPeriod: Bool?
    public var environment: String
    public var signedDate: Date

    /// Renewal info; by default a Sandbox subscription that renews.
    public init(
        originalTransactionID: String = "2000000000000001", productID: String = "com.example.monthly",
        autoRenewStatus: Int = 1, autoRenewProductID: String? = nil, expirationIntent: Int? = nil, gracePeriodExpiresDate: Date? = nil,
        isInBillingRetryPeriod: Bool? = nil, environment: String = "Sandbox",
        signedDate: Date = Date(timeIntervalSince1970: 1_700_000_000)
    ) {
        self.originalTransactionID = originalTransactionID
        self.productID = productID
        self.autoRenewStatus = autoRenewStatus
        self.autoRenewProductID = autoRenewProductID
        self.expirationIntent = expirationIntent
        self.gracePeriodExpiresDate = gracePeriodExpiresDate
        self.isInBillingRetryPeriod = isInBillingRetryPeriod
        self.environment = environment
        self.signedDate = signedDate
    }

    /// The payload JSON.
    public var payload: JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("originalTransactionId", .string(originalTransactionID)), ("autoRenewProductId", .string(autoRenewProductID ?? productID)),
            ("productId", .string(productID)), ("autoRenewStatus", .integer(Int64(autoRenewStatus)))
        ]
        appendIfPresent(&members, "expirationIntent", expirationIntent.map { .integer(Int64($0)) })
        appendIfPresent(&members, "gracePeriodExpiresDate", gracePeriodExpiresDate.map(appStoreMilliseconds))
        appendIfPresent(&members, "isInBillingRetryPeriod", isInBillingRetryPeriod.map { .bool($0) })
        members += [("signedDate", appStoreMilliseconds(signedDate)), ("environment", .string(environment))]
        return .object(members)
    }
}

/// An App Store Server Notification V2 the fake App Store signs (`ResponseBodyV2DecodedPayload`).
public struct FakeAppStoreNotification: Sendable {
    public var notificationType: String
    public var subtype: String?
    public var notificationUUID: String
    public var signedDate: Date
    public var environment: String
    public var bundleID: String
    /// Present in Production notifications.
    public var appAppleID: Int?
    /// `data.status`: 1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked.
    public var status: Int?
    /// Signed into `data.signedTransactionInfo`.
    public var transaction: FakeAppStoreTransaction?
    /// Signed into `data.signedRenewalInfo`.
    public var renewalInfo: FakeAppStoreRenewalInfo?

    /// A notification; by default about `com.example.app` in Sandbox.
    public init(
        notificationType: String, subtype: String? = nil, notificationUUID: String = UUID().uuidString.lowercased(),
        signedDate: Date = Date(timeIntervalSince1970: 1_700_000_000), environment: String = "Sandbox",
        bundleID: String = "com.example.app", appAppleID: Int? = nil, status: Int? = nil,
        transaction: FakeAppStoreTransaction? = nil, renewalInfo: FakeAppStoreRenewalInfo? = nil
    ) {
        self.notificationType = notificationType
        self.subtype = subtype
        self.notificationUUID = notificationUUID
        self.signedDate = signedDate
        self.environment = environment
        self.bundleID = bundleID
        self.appAppleID = appAppleID
        self.status = status
        self.transaction = transaction
        self.renewalInfo = renewalInfo
    }

    /// The payload JSON with the given nested signed data.
    public func payload(signedTransactionInfo: String?, signedRenewalInfo: String?) -> JSONValue {
        var data: [(key: String, value: JSONValue)] = []
        appendIfPresent(&data, "appAppleId", appAppleID.map { .integer(Int64($0)) })
        data += [("bundleId", .string(bundleID)), ("bundleVersion", "1"), ("environment", .string(environment))]
        appendIfPresent(&data, "signedTransactionInfo", signedTransactionInfo.map { .string($0) })
        appendIfPresent(&data, "signedRenewalInfo", signedRenewalInfo.map { .string($0) })
        appendIfPresent(&data, "status", status.map { .integer(Int64($0)) })
        var members: [(key: String, value: JSONValue)] = [("notificationType", .string(notificationType))]
        appendIfPresent(&members, "subtype", subtype.map { .string($0) })
        members += [
            ("notificationUUID", .string(notificationUUID)), ("data", .object(data)), ("version", "2.0"),
            ("signedDate", appStoreMilliseconds(signedDate))
        ]
        return .object(members)
    }
}
