import Configuration
import Domain

extension LinkOutPolicy {
    /// The policy of `link_out.rules`, each programme with where it reports.
    init(_ linkOut: TollgateConfig.LinkOut) {
        self.init(
            rules: linkOut.rules.map { rule in
                Rule(
                    platform: rule.platform == .ios ? .ios : .android, storefronts: Set(rule.storefronts), program: rule.program.rawValue,
                    tokenRequired: rule.tokenRequired, reporting: Self.reporting(of: rule.program))
            })
    }

    /// Where a programme's purchases are reported (STORES.md "External purchases", "External transactions").
    static func reporting(of program: LinkOutProgram) -> Reporting? {
        switch program {
        case .usLink: nil
        case .appleExternalPurchase: .apple
        case .googleExternalLinks, .googleExternalOffers: .google
        }
    }
}
