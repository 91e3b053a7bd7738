import Foundation

/// A Stripe customer-portal session (`billing_portal.session`): a short-lived URL where the
/// customer manages payment methods, invoices and cancellation on Stripe's own pages.
public struct StripeBillingPortalSession: Sendable, Equatable, Decodable {
    /// `bps_...`.
    public var id: String
    /// The customer it is for (`cus_...`).
    public var customer: String
    /// Where to send the customer (Stripe's page; it expires shortly after it is created).
    public var url: String
    /// Where Stripe's page links back to.
    public var returnURL: String?

    private enum CodingKeys: String, CodingKey {
        case id, customer, url
        case returnURL = "return_url"
    }

    public init(id: String, customer: String, url: String, returnURL: String?) {
        self.id = id
        self.customer = customer
        self.url = url
        self.returnURL = returnURL
    }
}
