import Foundation

/// A decoded App Store Server Notification V2 (`ResponseBodyV2DecodedPayload`).
///
/// After `AppStoreSignedDataVerifier.verifyNotification` the nested `data.signedTransactionInfo`
/// and `data.signedRenewalInfo` are verified too and available as `data.transaction` and
/// `data.renewalInfo`. See `snapshot(now:)` for what each type means for the purchase.
public struct AppStoreNotification: Sendable, Equatable, Decodable {
    /// `SUBSCRIBED`, `DID_RENEW`, `TEST`, ... (see `snapshot(now:)`).
    public var notificationType: String
    /// `INITIAL_BUY`, `GRACE_PERIOD`, `AUTO_RENEW_DISABLED`, ... when the type has one.
    public var subtype: String?
    /// Unique per notification; the App Store resends with the same UUID. Dedupe on it.
    public var notificationUUID: String?
    /// When the App Store signed the notification.
    public var signedDate: Date?
    /// The notification format version, `2.0`.
    public var version: String?
    /// The app and transaction the notification is about.
    public var data: NotificationData?
    /// Present instead of `data` for summary notifications (`RENEWAL_EXTENSION` / `SUMMARY`).
    public var summary: Summary?
    /// Present instead of `data` for app-level notifications.
    public var appData: AppData?
    /// Present instead of `data` for `EXTERNAL_PURCHASE_TOKEN` notifications.
    public var externalPurchaseToken: ExternalPurchaseTokenData?

    /// The `data` member: the app, the subscription status and the signed transaction.
    public struct NotificationData: Sendable, Equatable, Decodable {
        /// The app's Apple id (absent in Sandbox).
        public var appAppleID: Int?
        /// The app's bundle identifier.
        public var bundleID: String?
        /// The app's build version.
        public var bundleVersion: String?
        /// `Production`, `Sandbox`, ...
        public var environment: String?
        /// 1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked.
        public var status: Int?
        /// The signed transaction, as received.
        public var signedTransactionInfo: String?
        /// The signed renewal info, as received.
        public var signedRenewalInfo: String?
        /// `signedTransactionInfo`, verified and decoded (nil before verification).
        public var transaction: AppStoreTransaction?
        /// `signedRenewalInfo`, verified and decoded (nil before verification).
        public var renewalInfo: AppStoreRenewalInfo?

        private enum CodingKeys: String, CodingKey {
            case appAppleID = "appAppleId", bundleID = "bundleId", bundleVersion, environment, status
            case signedTransactionInfo, signedRenewalInfo
        }

        /// Decodes the App Store's JSON members.
        /// - Throws: `DecodingError` for a member of the wrong type.
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            appAppleID = try c.decodeIfPresent(Int.self, forKey: .appAppleID)
            bundleID = try c.decodeIfPresent(String.self, forKey: .bundleID)
            bundleVersion = try c.decodeIfPresent(String.self, forKey: .bundleVersion)
            environment = try c.decodeIfPresent(String.self, forKey: .environment)
            status = try c.decodeIfPresent(Int.self, forKey: .status)
            signedTransactionInfo = try c.decodeIfPresent(String.self, forKey: .signedTransactionInfo)
            signedRenewalInfo = try c.decodeIfPresent(String.self, forKey: .signedRenewalInfo)
        }
    }

    /// The `summary` member of a summary notification.
    public struct Summary: Sendable, Equatable, Decodable {
        /// The app's Apple id.
        public var appAppleID: Int?
        /// The app's bundle identifier.
        public var bundleID: String?
        /// `Production`, `Sandbox`, ...
        public var environment: String?
        /// The product the request was about.
        public var productID: String?

        private enum CodingKeys: String, CodingKey {
            case appAppleID = "appAppleId", bundleID = "bundleId", environment, productID = "productId"
        }
    }

    /// The `appData` member of an app-level notification.
    public struct AppData: Sendable, Equatable, Decodable {
        /// The app's Apple id.
        public var appAppleID: Int?
        /// The app's bundle identifier.
        public var bundleID: String?
        /// `Production`, `Sandbox`, ...
        public var environment: String?

        private enum CodingKeys: String, CodingKey {
            case appAppleID = "appAppleId", bundleID = "bundleId", environment
        }
    }

    private enum CodingKeys: String, CodingKey {
        case notificationType, subtype, notificationUUID, signedDate, version, data, summary, appData, externalPurchaseToken
    }

    /// Decodes the App Store's JSON members; `notificationType` is required.
    /// - Throws: `DecodingError` for a missing type or a member of the wrong type.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        notificationType = try c.decode(String.self, forKey: .notificationType)
        subtype = try c.decodeIfPresent(String.self, forKey: .subtype)
        notificationUUID = try c.decodeIfPresent(String.self, forKey: .notificationUUID)
        signedDate = try AppStoreJSON.date(c, .signedDate)
        version = try c.decodeIfPresent(String.self, forKey: .version)
        data = try c.decodeIfPresent(NotificationData.self, forKey: .data)
        summary = try c.decodeIfPresent(Summary.self, forKey: .summary)
        appData = try c.decodeIfPresent(AppData.self, forKey: .appData)
        externalPurchaseToken = try c.decodeIfPresent(ExternalPurchaseTokenData.self, forKey: .externalPurchaseToken)
    }

    /// The app identity and environment the notification claims: from `data`, else `summary`,
    /// else `appData` (STORES.md §6).
    var claimedApp: (bundleID: String?, appAppleID: Int?, environment: String?) {
        if let data { return (data.bundleID, data.appAppleID, data.environment) }
        if let summary { return (summary.bundleID, summary.appAppleID, summary.environment) }
        if let appData { return (appData.bundleID, appData.appAppleID, appData.environment) }
        if let token = externalPurchaseToken { return (token.bundleID, token.appAppleID, token.environment) }
        return (nil, nil, nil)
    }
}
