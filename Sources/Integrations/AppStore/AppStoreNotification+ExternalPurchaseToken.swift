import Foundation

extension AppStoreNotification {
    /// The `externalPurchaseToken` member of an `EXTERNAL_PURCHASE_TOKEN` notification (subtype
    /// `UNREPORTED`: a token not reported ten days after it was made): the decoded token, which
    /// names the app. It has no `environment`; a sandbox token's id begins with `SANDBOX`
    /// (https://developer.apple.com/documentation/appstoreservernotifications/externalpurchasetoken).
    public struct ExternalPurchaseTokenData: Sendable, Equatable, Decodable {
        /// `externalPurchaseId`: what the report names the token by.
        public var externalPurchaseID: String
        /// `tokenCreationDate`.
        public var creationDate: Date?
        /// `appAppleId`.
        public var appAppleID: Int?
        /// `bundleId`.
        public var bundleID: String?

        /// `Sandbox` for a sandbox token, else `Production`.
        public var environment: String {
            externalPurchaseID.hasPrefix("SANDBOX") ? AppStoreEnvironment.sandbox.rawValue : AppStoreEnvironment.production.rawValue
        }

        private enum CodingKeys: String, CodingKey {
            case externalPurchaseID = "externalPurchaseId", creationDate = "tokenCreationDate", appAppleID = "appAppleId", bundleID = "bundleId"
        }

        /// Decodes the App Store's JSON members; `externalPurchaseId` is required.
        /// - Throws: `DecodingError` for a missing id or a member of the wrong type.
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            externalPurchaseID = try c.decode(String.self, forKey: .externalPurchaseID)
            creationDate = try AppStoreJSON.date(c, .creationDate)
            appAppleID = try c.decodeIfPresent(Int.self, forKey: .appAppleID)
            bundleID = try c.decodeIfPresent(String.self, forKey: .bundleID)
        }
    }
}
