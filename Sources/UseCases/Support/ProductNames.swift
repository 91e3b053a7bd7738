import Domain

/// A name for a product in emails and pages: the entitlement it grants, else its plan, else
/// the product id itself; and what was bought (`plan(of:platform:)`): the web plan's name, or
/// the store product's id.
public struct ProductNames: Sendable {
    let entitlements: [String: [String]]
    /// Plan name → price id.
    let planPrices: [String: String]

    public init(entitlements: [String: [String]], planPrices: [String: String]) {
        self.entitlements = entitlements
        self.planPrices = planPrices
    }

    /// `Premium` for a product that grants `premium`.
    public func name(of productID: String) -> String {
        if let entitlement = entitlements.keys.sorted().first(where: { entitlements[$0]?.contains(productID) == true }) {
            return Self.capitalized(entitlement)
        }
        if let plan = planPrices.keys.sorted().first(where: { planPrices[$0] == productID }) {
            return Self.capitalized(plan)
        }
        return productID
    }

    /// What was bought, beside what it unlocks: a web purchase's plan (`Monthly` for the plan
    /// `monthly` whose price it is; the price id when no plan has it), a store purchase's product id.
    public func plan(of productID: String, platform: Platform) -> String {
        guard platform == .stripe else { return productID }
        return planPrices.keys.sorted().first { planPrices[$0] == productID }.map(Self.capitalized) ?? productID
    }

    private static func capitalized(_ name: String) -> String { name.prefix(1).uppercased() + name.dropFirst() }
}
