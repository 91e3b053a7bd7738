/// A name for a product in emails and pages: the entitlement it grants, else its plan, else
/// the product id itself.
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

    private static func capitalized(_ name: String) -> String { name.prefix(1).uppercased() + name.dropFirst() }
}
