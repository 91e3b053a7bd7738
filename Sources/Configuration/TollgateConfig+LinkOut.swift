extension TollgateConfig {
    /// `link_out`: where the app may send buyers to web checkout, under which platform programme
    /// (API.md "Link-out compliance").
    public struct LinkOut: Sendable, Equatable {
        /// `link_out.rules`: each rule allows link-out on one platform for its storefronts.
        /// Default: the US storefront on iOS, without a token; nothing else.
        public var rules: [LinkOutRule] = [LinkOutRule(platform: .ios, storefronts: ["USA"], program: .usLink, tokenRequired: false)]

        public init() {}
    }

    /// One `link_out.rules` entry: `{"platform", "storefronts", "program", "token_required"}`.
    public struct LinkOutRule: Sendable, Equatable {
        /// The platform the app runs on.
        public var platform: LinkOutPlatform
        /// ISO 3166-1 alpha-3 codes, upper case, as StoreKit's `Storefront.countryCode` (`USA`).
        public var storefronts: [String]
        /// The programme the link-out runs under.
        public var program: LinkOutProgram
        /// Whether `/checkout/start` needs the platform's token; defaults to the programme's.
        public var tokenRequired: Bool

        public init(platform: LinkOutPlatform, storefronts: [String], program: LinkOutProgram, tokenRequired: Bool) {
            self.platform = platform
            self.storefronts = storefronts
            self.program = program
            self.tokenRequired = tokenRequired
        }
    }
}

/// `link_out.rules[].platform`.
public enum LinkOutPlatform: String, Sendable, Equatable, CaseIterable {
    case ios, android
}

/// `link_out.rules[].program`: the platform programmes Tollgate knows, each with its platform
/// and where its purchases are reported (STORES.md "External purchases", "External transactions").
public enum LinkOutProgram: String, Sendable, Equatable, CaseIterable {
    /// The US App Store storefront: a link to the web without a token or a report.
    case usLink = "us_link"
    /// Apple's StoreKit External Purchase link programmes (the EU, Japan, Brazil, ...): the app
    /// passes its `ExternalPurchaseCustomLink` token; each token is reported to Apple.
    case appleExternalPurchase = "apple_external_purchase"
    /// Google Play's external content links programme: the Play Billing Library's external
    /// transaction token; each purchase is reported to Google within 24 hours.
    case googleExternalLinks = "google_external_links"
    /// Google Play's external offers programme (EEA): as `google_external_links`.
    case googleExternalOffers = "google_external_offers"

    /// The platform the programme belongs to.
    public var platform: LinkOutPlatform {
        switch self {
        case .usLink, .appleExternalPurchase: .ios
        case .googleExternalLinks, .googleExternalOffers: .android
        }
    }

    /// Whether its purchases are reported to the platform, which needs the token.
    public var reports: Bool { self != .usLink }
}
