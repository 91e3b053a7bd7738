/// Which configured plan `/checkout/start` was asked for, however the paywall named it:
/// `plan` (a plan's name), `price_id` (its Stripe price), `plan_id` (Purchasely's deeplink
/// `web_checkout/?plan_id=[stripe_price_id]`: a price or a plan's name) or only the
/// `stripe_price_id` inside `ply_context` (Purchasely's sample app). Every one given must name
/// the same plan.
public struct CheckoutPlanChoice: Sendable {
    /// One way the plan was named: the input (`plan`, `price_id`, `plan_id`,
    /// `ply_context's stripe_price_id`) and what it said.
    public struct Naming: Sendable, Equatable {
        public var input: String
        public var value: String

        public init(input: String, value: String) {
            self.input = input
            self.value = value
        }
    }

    public var name: String
    public var plan: CheckoutPlan

    /// The plan the namings agree on.
    /// - Throws: `UseCaseError.badRequest` naming what was sent: nothing, a plan or price that is
    ///   no configured plan's, or two namings that disagree.
    public init(_ namings: [Naming], plans: [String: CheckoutPlan]) throws {
        guard !namings.isEmpty else {
            throw UseCaseError.badRequest("Choose a plan: send plan, price_id or plan_id (or ply_context with its stripe_price_id).")
        }
        var chosen: (naming: Naming, name: String, plan: CheckoutPlan)?
        for naming in namings {
            guard let (name, plan) = Self.lookUp(naming, plans: plans) else {
                throw UseCaseError.badRequest(
                    naming.input == "plan"
                        ? "There is no plan called \"\(naming.value)\"."
                        : "The price \(naming.value) (sent as \(naming.input)) is not offered here.")
            }
            if let first = chosen, first.plan.priceID != plan.priceID {
                throw UseCaseError.badRequest(
                    "\(first.naming.input)=\(first.naming.value) and \(naming.input)=\(naming.value) name different plans: send one.")
            }
            if chosen == nil { chosen = (naming, name, plan) }
        }
        guard let chosen else { throw UseCaseError.badRequest("Choose a plan: send plan, price_id or plan_id.") }
        name = chosen.name
        plan = chosen.plan
    }

    /// `plan` is a name; `price_id` and `stripe_price_id` are prices; `plan_id` is a price,
    /// else a name. A price shared by two plans picks the first by name, so the choice is stable.
    private static func lookUp(_ naming: Naming, plans: [String: CheckoutPlan]) -> (String, CheckoutPlan)? {
        let byPrice = plans.sorted { $0.key < $1.key }.first { $0.value.priceID == naming.value }.map { ($0.key, $0.value) }
        let byName = plans[naming.value].map { (naming.value, $0) }
        switch naming.input {
        case "plan": return byName
        case "plan_id": return byPrice ?? byName
        default: return byPrice
        }
    }
}
