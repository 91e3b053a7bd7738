import Foundation

/// Whether the app may show its link to web checkout in a storefront
/// (`GET /api/v1/checkout/eligibility`, API.md "Link-out compliance").
@available(iOS 16, macOS 13, tvOS 16, watchOS 9, *)
public struct CheckoutEligibility: Sendable, Equatable, Decodable {
    /// Whether the app may link out here; when false, show the store's own purchase instead.
    public let linkOut: Bool
    /// The programme of the storefront's rule (`us_link`, `apple_external_purchase`, ...).
    public let program: String?
    /// Whether the checkout needs the platform's token (`CheckoutRequest.LinkOut`).
    public let tokenRequired: Bool
    /// `/checkout/start` with the platform and storefront set.
    public let checkoutURL: URL?

    enum CodingKeys: String, CodingKey {
        case linkOut = "link_out"
        case program
        case tokenRequired = "token_required"
        case checkoutURL = "checkout_url"
    }
}
