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
    /// The app user claiming (sent with this install's secret: together they count as signed in,
    /// and a new app user is bound to this install).
    public var appUserID: String?
    /// A PKCE S256 challenge (base64url SHA-256 of a verifier you keep): the `loginURL` then signs
    /// in only with that verifier, so a copied link is useless.
    public var codeChallenge: String?

    /// - Parameters: see the properties; all optional.
    public init(
        email: String? = nil, referrerID: String? = nil, appleSearchAds: [String: String]? = nil, appUserID: String? = nil,
        codeChallenge: String? = nil
    ) {
        self.email = email
        self.referrerID = referrerID
        self.appleSearchAds = appleSearchAds
        self.appUserID = appUserID
        self.codeChallenge = codeChallenge
    }

    /// Adds `customer_details` and `conversion_details` to a claim body.
    func add(to body: inout [String: Any]) {
        if let email { body["customer_details"] = ["email": email] }
        var conversion: [String: Any] = [:]
        if let referrerID { conversion["referrer_id"] = referrerID }
        if let appleSearchAds { conversion["apple_search_ads"] = appleSearchAds }
        if !conversion.isEmpty { body["conversion_details"] = conversion }
        if let appUserID { body["app_user_id"] = appUserID }
        if let codeChallenge { body["code_challenge"] = codeChallenge }
    }
}
