/// Where the app may send buyers to web checkout, and under which platform programme
/// (API.md "Link-out compliance"): one rule per platform and storefront.
public struct LinkOutPolicy: Sendable, Equatable {
    /// The platform the app runs on.
    public enum Platform: String, Sendable, Equatable, CaseIterable {
        case ios, android
    }

    /// Who a programme's purchases are reported to.
    public enum Reporting: String, Sendable, Equatable {
        /// Apple's External Purchase Server API, one report per token.
        case apple
        /// Google Play's external transactions, one per purchase and renewal, within 24 hours.
        case google
    }

    /// One programme on one platform for some storefronts.
    public struct Rule: Sendable, Equatable {
        public let platform: Platform
        /// ISO 3166-1 alpha-3 codes, upper case (`USA`).
        public let storefronts: Set<String>
        /// The programme's name as configured (`us_link`, `apple_external_purchase`, ...).
        public let program: String
        /// Whether a checkout must carry the platform's token.
        public let tokenRequired: Bool
        /// Where purchases under the programme are reported; nil when nowhere.
        public let reporting: Reporting?

        public init(platform: Platform, storefronts: Set<String>, program: String, tokenRequired: Bool, reporting: Reporting?) {
            self.platform = platform
            self.storefronts = storefronts
            self.program = program
            self.tokenRequired = tokenRequired
            self.reporting = reporting
        }
    }

    /// What the app may do in one storefront.
    public struct Eligibility: Sendable, Equatable {
        /// The rule that allows linking out; nil when the app may not link out.
        public let rule: Rule?

        public var linkOut: Bool { rule != nil }
        public var program: String? { rule?.program }
        public var tokenRequired: Bool { rule?.tokenRequired ?? false }
    }

    public let rules: [Rule]

    public init(rules: [Rule]) { self.rules = rules }

    /// The rule for `storefront` on `platform`; a storefront no rule names may not link out.
    public func eligibility(platform: Platform, storefront: String) -> Eligibility {
        Eligibility(rule: rules.first { $0.platform == platform && $0.storefronts.contains(storefront) })
    }

    /// Three capital ASCII letters: the shape of an ISO 3166-1 alpha-3 code, as StoreKit's
    /// `Storefront.countryCode` gives it.
    public static func isStorefrontCode(_ text: String) -> Bool {
        text.utf8.count == 3 && text.utf8.allSatisfy { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }
    }
}
