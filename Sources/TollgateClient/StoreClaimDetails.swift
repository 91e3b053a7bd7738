/// Optional details sent with a store claim (API.md `customer_details` / `conversion_details`).
@available(iOS 16, macOS 13, tvOS 16, watchOS 9, *)
public struct StoreClaimDetails: Sendable, Equatable {
    /// An email for the account: it is set unconfirmed and a confirmation mail is sent.
    public var email: String?
    /// Who referred the user (`conversion_details.referrer_id`).
    public var referrerID: String?
    /// Apple Search Ads attribution (`conversion_details.apple_search_ads`), as the AdServices
    /// API returned it (string values).
    public var appleSearchAds: [String: String]?

    /// - Parameters: see the properties; all optional.
    public init(email: String? = nil, referrerID: String? = nil, appleSearchAds: [String: String]? = nil) {
        self.email = email
        self.referrerID = referrerID
        self.appleSearchAds = appleSearchAds
    }

    /// Adds `customer_details` and `conversion_details` to a claim body.
    func add(to body: inout [String: Any]) {
        if let email { body["customer_details"] = ["email": email] }
        var conversion: [String: Any] = [:]
        if let referrerID { conversion["referrer_id"] = referrerID }
        if let appleSearchAds { conversion["apple_search_ads"] = appleSearchAds }
        if !conversion.isEmpty { body["conversion_details"] = conversion }
    }
}
