/// The one error type of the Stripe simulator: a refused hosted-checkout form, a Stripe form body
/// that breaks Stripe's parameter rules, or a lifecycle action (`tollgate demo`) that could not be
/// done. `message` says what to do about it.
public struct StripeSimulatorError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, precise enough for the routes to choose their answer.
    public enum Kind: Sendable, Equatable {
        /// The hosted checkout does not exist (404).
        case notFound
        /// The checkout form is out of date or was sent from another site (403).
        case forbidden
        /// A checkout form field is missing or invalid (400).
        case invalid
        /// A Stripe form body with an invalid parameter name; Stripe answers 400 naming `param`.
        case invalidParameter(param: String)
        /// `SimulatorLifecycleClient` could not renew, cancel or refund: the service is not
        /// reachable, the buyer is unknown, or the simulator refused.
        case actionFailed
    }

    /// What went wrong.
    public let kind: Kind
    /// A sentence a person can act on.
    public let message: String

    /// Creates an error of `kind`.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The parameter at fault, for `.invalidParameter`.
    public var param: String? {
        if case .invalidParameter(let param) = kind { return param }
        return nil
    }

    /// The message.
    public var description: String { message }
}
