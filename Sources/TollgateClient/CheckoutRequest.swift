import Foundation

/// What the paywall sends to `/checkout/start` (API.md "Web checkout"). Open
/// `Tollgate.checkoutURL(for:)` in the browser, then poll with `checkoutContextID`.
@available(iOS 16, macOS 13, tvOS 16, watchOS 9, *)
public struct CheckoutRequest: Sendable, Equatable {
    /// What to buy: a plan name from the service's config, or one of its Stripe price ids.
    public enum Product: Sendable, Equatable {
        /// A plan name of the service's `plans` config (`plan=`).
        case plan(String)
        /// A Stripe price id one of the plans uses (`price_id=`).
        case priceID(String)
    }

    /// The paywall context paywall SDKs send as `ply_context` (base64 JSON).
    public struct PaywallContext: Sendable, Equatable, Encodable {
        /// `presentation_id`: the paywall presentation.
        public var presentationID: String?
        /// `placement_id`: where the paywall was shown.
        public var placementID: String?
        /// `ab_test_id`.
        public var abTestID: String?
        /// `ab_test_variant_id`.
        public var abTestVariantID: String?
        /// `stripe_price_id` the paywall offered.
        public var stripePriceID: String?
        /// `stripe_object_type` (`price`, ...).
        public var stripeObjectType: String?
        /// `original_platform` (`ios`, `android`, `web`).
        public var originalPlatform: String?

        /// - Parameters: every field is optional; nil ones are left out.
        public init(
            presentationID: String? = nil, placementID: String? = nil, abTestID: String? = nil, abTestVariantID: String? = nil,
            stripePriceID: String? = nil, stripeObjectType: String? = nil, originalPlatform: String? = nil
        ) {
            self.presentationID = presentationID
            self.placementID = placementID
            self.abTestID = abTestID
            self.abTestVariantID = abTestVariantID
            self.stripePriceID = stripePriceID
            self.stripeObjectType = stripeObjectType
            self.originalPlatform = originalPlatform
        }

        enum CodingKeys: String, CodingKey {
            case presentationID = "presentation_id"
            case placementID = "placement_id"
            case abTestID = "ab_test_id"
            case abTestVariantID = "ab_test_variant_id"
            case stripePriceID = "stripe_price_id"
            case stripeObjectType = "stripe_object_type"
            case originalPlatform = "original_platform"
        }

        /// Base64 of the JSON object (standard alphabet; the service accepts both).
        var encoded: String {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            return ((try? encoder.encode(self)) ?? Data("{}".utf8)).base64EncodedString()
        }
    }

    /// The plan or price.
    public var product: Product
    /// The app user the purchase is for: the checkout links it to their account.
    public var appUserID: String?
    /// A client-made id to poll the checkout with (`Tollgate.waitForCheckout`); one per checkout.
    public var checkoutContextID: UUID
    /// Prefills the payment page and receives the redemption code.
    public var email: String?
    /// The paywall's context, carried into the purchase's attribution.
    public var paywallContext: PaywallContext?
    /// One of the service's configured `redirect_urls` (redirect mode).
    public var redirectURL: String?
    /// `utm_*`, `campaign_*` and other custom parameters (placement, ...), sent as given.
    public var parameters: [String: String]
    /// Where the app links out from and its platform's token (`Tollgate.checkoutEligibility`).
    public var linkOut: LinkOut?

    /// An app linking out under a platform programme: its platform, storefront and token.
    public struct LinkOut: Sendable, Equatable {
        /// `ios` or `android`.
        public var platform: String
        /// ISO 3166-1 alpha-3, as StoreKit's `Storefront.countryCode` (`USA`).
        public var storefront: String
        /// Apple's `ExternalPurchaseCustomLink` token (`external_purchase_token`).
        public var externalPurchaseToken: String?
        /// Google Play Billing's external transaction token (`external_transaction_token`).
        public var externalTransactionToken: String?

        public init(platform: String, storefront: String, externalPurchaseToken: String? = nil, externalTransactionToken: String? = nil) {
            self.platform = platform
            self.storefront = storefront
            self.externalPurchaseToken = externalPurchaseToken
            self.externalTransactionToken = externalTransactionToken
        }
    }

    /// - Parameters: see the properties; a fresh `checkoutContextID` is made unless given.
    public init(
        product: Product, appUserID: String? = nil, checkoutContextID: UUID = UUID(), email: String? = nil,
        paywallContext: PaywallContext? = nil, redirectURL: String? = nil, parameters: [String: String] = [:], linkOut: LinkOut? = nil
    ) {
        self.linkOut = linkOut
        self.product = product
        self.appUserID = appUserID
        self.checkoutContextID = checkoutContextID
        self.email = email
        self.paywallContext = paywallContext
        self.redirectURL = redirectURL
        self.parameters = parameters
    }

    /// The query of `/checkout/start`: its own inputs first, then the custom parameters by name.
    var queryItems: [URLQueryItem] {
        var items: [URLQueryItem]
        switch product {
        case .plan(let name): items = [URLQueryItem(name: "plan", value: name)]
        case .priceID(let id): items = [URLQueryItem(name: "price_id", value: id)]
        }
        if let appUserID { items.append(URLQueryItem(name: "app_user_id", value: appUserID)) }
        items.append(URLQueryItem(name: "checkout_context_id", value: checkoutContextID.uuidString.lowercased()))
        if let email { items.append(URLQueryItem(name: "email", value: email)) }
        if let paywallContext { items.append(URLQueryItem(name: "ply_context", value: paywallContext.encoded)) }
        if let redirectURL { items.append(URLQueryItem(name: "redirect_url", value: redirectURL)) }
        if let linkOut {
            items.append(URLQueryItem(name: "platform", value: linkOut.platform))
            items.append(URLQueryItem(name: "storefront", value: linkOut.storefront))
            if let token = linkOut.externalPurchaseToken { items.append(URLQueryItem(name: "external_purchase_token", value: token)) }
            if let token = linkOut.externalTransactionToken { items.append(URLQueryItem(name: "external_transaction_token", value: token)) }
        }
        for (name, value) in parameters.sorted(by: { $0.key < $1.key }) {
            items.append(URLQueryItem(name: name, value: value))
        }
        return items
    }
}
