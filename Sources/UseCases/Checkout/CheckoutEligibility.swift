import Domain
import Integrations
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
    ///   - storefront: an ISO 3166-1 alpha-3 code (`USA`, StoreKit's `Storefront.countryCode`) or
    ///     alpha-2 code (`US`, Play's `regionCode`, most paywall SDKs): the same storefront either
    ///     way (STORES.md "Country codes"); any case.
    /// - Throws: `UseCaseError.badRequest` for a missing or unknown platform or a storefront that
    ///   is not two or three letters. A well-formed storefront no rule names is not an error: the
    ///   app may not link out there.
    public func check(platform: String?, storefront: String?) throws -> LinkOutPolicy.Eligibility {
        let platforms = LinkOutPolicy.Platform.allCases.map(\.rawValue).joined(separator: " or ")
        guard let platform, let known = LinkOutPolicy.Platform(rawValue: platform.lowercased()) else {
            throw UseCaseError.badRequest("platform must be \(platforms).")
        }
        return policy.eligibility(platform: known, storefront: try Self.storefront(storefront))
    }

    /// The storefront as `link_out.rules` name it: the alpha-3 code of an ISO 3166-1 country sent
    /// as alpha-2 or alpha-3 (`US`, `us`, `USA` → `USA`); three letters of no country stay as sent
    /// (upper-cased): no rule names them.
    /// - Throws: `UseCaseError.badRequest` for anything but two or three ASCII letters.
    public static func storefront(_ text: String?) throws -> String {
        let code = (text ?? "").uppercased()
        if let country = ISOCountry(code: code) { return country.alpha3 }
        guard LinkOutPolicy.isStorefrontCode(code) || (code.utf8.count == 2 && code.utf8.allSatisfy { (65...90).contains($0) }) else {
            throw UseCaseError.badRequest(
                "storefront must be an ISO 3166-1 country code: alpha-3 such as USA (StoreKit's Storefront.countryCode) or alpha-2 such as US.")
        }
        return code
    }
}
