import Foundation

/// Calls the Stripe API: creates Checkout Sessions and customer-portal sessions, and reads
/// sessions and subscriptions.
///
/// Every request carries `Authorization: Bearer sk_...` and `Stripe-Version: 2025-03-31.basil`.
/// The version is pinned so an account's default version can never change the shapes this
/// client reads; 2025-03-31.basil is the release that moved `current_period_end` onto
/// subscription items and an invoice's subscription under `parent.subscription_details`, the
/// shapes the project's Stripe vectors carry. (The objects still read the older shapes too,
/// because webhook payloads follow the endpoint's own version.)
///
/// Failures: Stripe rejecting a request (4xx with an error body) → `StripeError.api`; 429, 5xx,
/// timeouts, an unreachable host or a body that is not the expected JSON → `UpstreamError`
/// with service `stripe`; a request Stripe would reject → `StripeError.request` before sending.
public struct StripeClient: Sendable {
    /// The pinned `Stripe-Version`.
    public static let apiVersion = "2025-03-31.basil"
    /// The production API base.
    public static let defaultAPIBase = "https://api.stripe.com"

    private let secretKey: String
    private let apiBase: @Sendable () -> String
    let httpClient: any OutboundHTTPClient
    private let timeout: Duration

    /// A client for one secret key.
    /// - Parameters:
    ///   - secretKey: `sk_live_...`, `sk_test_...` or a restricted `rk_...` key.
    ///   - apiBase: `https://api.stripe.com` in production; a fake server in tests.
    ///   - http: the outbound transport.
    ///   - timeout: time allowed per request.
    public init(secretKey: String, apiBase: String, http: any OutboundHTTPClient, timeout: Duration = .seconds(30)) {
        self.init(secretKey: secretKey, apiBase: { apiBase }, http: http, timeout: timeout)
    }

    /// A client whose API base is read at each request: demo mode's simulator listens on a
    /// port known only once the server is bound.
    public init(secretKey: String, apiBase: @escaping @Sendable () -> String, http: any OutboundHTTPClient, timeout: Duration = .seconds(30)) {
        self.secretKey = secretKey
        self.apiBase = apiBase
        self.httpClient = http
        self.timeout = timeout
    }

    /// `POST /v1/checkout/sessions`: a new hosted Checkout page for one price.
    /// - Parameter idempotencyKey: sent as `Idempotency-Key`; a retry with the same key returns
    ///   the same session instead of creating another (at most 255 printable ASCII characters).
    /// - Throws: `StripeError.request` (invalid request, before sending), `StripeError.api`
    ///   (Stripe rejected it), `UpstreamError` (Stripe unavailable or unreadable).
    public func createCheckoutSession(_ request: CheckoutSessionRequest, idempotencyKey: String) async throws -> StripeCheckoutSession {
        try request.validate()
        guard !idempotencyKey.isEmpty, idempotencyKey.utf8.count <= 255,
            idempotencyKey.utf8.allSatisfy({ $0 >= 0x21 && $0 <= 0x7E })
        else {
            throw StripeError.request(.init(.invalidIdempotencyKey, "the idempotency key must be 1 to 255 printable ASCII characters without spaces"))
        }
        let path = "/v1/checkout/sessions"
        var outbound = try makeRequest(method: "POST", path: path)
        outbound.headers.append(("Content-Type", "application/x-www-form-urlencoded"))
        outbound.headers.append(("Idempotency-Key", idempotencyKey))
        outbound.body = request.formParameters.encoded()
        return try await perform(outbound, path: path, decoding: StripeCheckoutSession.self, what: "checkout.session")
    }

    /// `GET /v1/checkout/sessions/{id}`.
    /// - Parameters:
    ///   - id: `cs_...`, checked before it goes into the URL.
    ///   - expandSubscription: asks for the subscription object inline (`expand[]=subscription`),
    ///     so `subscription` is set on the result.
    ///   - expandLineItems: asks for the line items (`expand[]=line_items`), so `lineItemPriceIDs`
    ///     is set on the result.
    /// - Throws: `StripeError.request` (not a session id), `StripeError.api` (e.g. `isResourceMissing`
    ///   for an unknown session), `UpstreamError`.
    public func retrieveCheckoutSession(
        id: String, expandSubscription: Bool = false, expandLineItems: Bool = false
    ) async throws -> StripeCheckoutSession {
        try Self.validateID(id, prefix: "cs_", name: "checkout session")
        let path = "/v1/checkout/sessions/\(id)"
        let expand = (expandSubscription ? ["expand[]=subscription"] : []) + (expandLineItems ? ["expand[]=line_items"] : [])
        let request = try makeRequest(method: "GET", path: path, query: expand.isEmpty ? nil : expand.joined(separator: "&"))
        return try await perform(request, path: path, decoding: StripeCheckoutSession.self, what: "checkout.session")
    }

    /// `GET /v1/subscriptions/{id}`.
    /// - Parameter id: `sub_...`, checked before it goes into the URL.
    /// - Throws: `StripeError.request` (not a subscription id), `StripeError.api`, `UpstreamError`.
    public func retrieveSubscription(id: String) async throws -> StripeSubscription {
        try Self.validateID(id, prefix: "sub_", name: "subscription")
        let path = "/v1/subscriptions/\(id)"
        let request = try makeRequest(method: "GET", path: path)
        return try await perform(request, path: path, decoding: StripeSubscription.self, what: "subscription")
    }

    /// `POST /v1/billing_portal/sessions`: a customer-portal session for `customerID` whose
    /// page links back to `returnURL`.
    /// - Throws: `StripeError.request` (not a customer id), `StripeError.api` (e.g. no portal
    ///   configuration in the account), `UpstreamError`.
    public func createBillingPortalSession(customerID: String, returnURL: String) async throws -> StripeBillingPortalSession {
        try Self.validateID(customerID, prefix: "cus_", name: "customer")
        let path = "/v1/billing_portal/sessions"
        var outbound = try makeRequest(method: "POST", path: path)
        outbound.headers.append(("Content-Type", "application/x-www-form-urlencoded"))
        var form = StripeFormEncoder()
        form.add("customer", customerID)
        form.add("return_url", returnURL)
        outbound.body = form.encoded()
        return try await perform(outbound, path: path, decoding: StripeBillingPortalSession.self, what: "billing_portal.session")
    }

    /// Stripe ids are a prefix and letters, digits and underscores; anything else is refused so
    /// it can never change the request path.
    /// - Throws: `StripeError.request` (`.invalidID`).
    static func validateID(_ id: String, prefix: String, name: String) throws {
        let valid =
            id.hasPrefix(prefix) && id.utf8.count > prefix.utf8.count && id.utf8.count <= 255
            && id.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F
            }
        guard valid else {
            throw StripeError.request(.init(.invalidID, "not a Stripe \(name) id (expected \(prefix) followed by letters, digits or _)"))
        }
    }

    func makeRequest(method: String, path: String, query: String? = nil) throws -> OutboundRequest {
        var apiBase = apiBase()
        while apiBase.hasSuffix("/") { apiBase.removeLast() }
        let text = apiBase + path + (query.map { "?" + $0 } ?? "")
        guard apiBase.hasPrefix("https://") || apiBase.hasPrefix("http://"), let url = URL(string: text) else {
            throw StripeError.request(.init(.invalidConfiguration, "the Stripe API base \"\(apiBase)\" is not an http(s) URL"))
        }
        return OutboundRequest(
            method: method, url: url,
            headers: [
                ("Authorization", "Bearer \(secretKey)"),
                ("Stripe-Version", Self.apiVersion),
                ("Accept", "application/json"),
                ("User-Agent", "Tollgate")
            ],
            timeout: timeout)
    }
}
