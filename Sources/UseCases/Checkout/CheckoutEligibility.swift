import Domain
import Foundation

/// `GET /api/v1/checkout/eligibility?platform=&storefront=`: whether the app may show its link to
/// web checkout in a storefront, under which programme, and whether it must pass a token.
public struct CheckoutEligibility: Sendable {
    let policy: LinkOutPolicy
    /// What the buyer already holds (nil: not asked).
    let holdings: AlreadyEntitledCheck?
    /// The price ids of the configured plans.
    let planPrices: [String]

    public init(policy: LinkOutPolicy, holdings: AlreadyEntitledCheck? = nil, planPrices: [String] = []) {
        self.policy = policy
        self.holdings = holdings
        self.planPrices = planPrices
    }

    /// Given an app user id: what it already holds of everything the web plans grant, so the app
    /// can hide its web button (entitlement, store and management link only); nil when a web
    /// plan would still grant something new.
    /// - Throws: `StorageError`.
    public func alreadyEntitled(appUserID: String, now: Date) async throws -> AlreadyEntitledCheck.Refusal? {
        try await holdings?.holding(appUserID: appUserID, accountID: nil, priceIDs: planPrices, now: now)
    }

    /// - Parameters:
    ///   - platform: `ios` or `android` (any case: `iOS` too).
    ///   - storefront: an ISO 3166-1 alpha-3 code (`USA`); lower case is accepted and upper-cased.
    /// - Throws: `UseCaseError.badRequest` for a missing or unknown platform or a storefront that
    ///   is not three letters. A well-formed storefront no rule names is not an error: the app
    ///   may not link out there.
    public func check(platform: String?, storefront: String?) throws -> LinkOutPolicy.Eligibility {
        let platforms = LinkOutPolicy.Platform.allCases.map(\.rawValue).joined(separator: " or ")
        guard let platform, let known = LinkOutPolicy.Platform(rawValue: platform.lowercased()) else {
            throw UseCaseError.badRequest("platform must be \(platforms).")
        }
        let code = (storefront ?? "").uppercased()
        guard LinkOutPolicy.isStorefrontCode(code) else {
            throw UseCaseError.badRequest("storefront must be an ISO 3166-1 alpha-3 code such as USA (StoreKit's Storefront.countryCode).")
        }
        return policy.eligibility(platform: known, storefront: code)
    }
}
