/// A failure of the domain that callers turn into a clear answer (Domain's one error type).
/// `reason` names the refusals callers tell apart (a Stripe object not vouched for, a product
/// without a duration, ...); a failure without one is told by `kind` alone.
public struct DomainError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, for mapping to HTTP statuses.
    public enum Kind: String, Sendable, Equatable {
        case notFound = "not_found"
        case conflict
        case invalid
        /// Data in the database that should not be possible (a broken invariant).
        case corrupt
    }

    /// A refusal callers act on by name, with what they need to answer it.
    public enum Reason: Sendable, Equatable {
        /// A Stripe object this deployment does not vouch for (`StripeVouching`): acknowledged,
        /// logged, nothing stored.
        case notVouched(objectID: String, priceID: String)
        /// A non-renewing purchase of a product with no configured duration (`ProductDurations`).
        case durationMissing(productID: String)
        /// A paid checkout session that stands for no purchase (setup mode, a subscription
        /// session without its subscription, an unknown mode): acknowledged and dropped.
        case unusableCheckout(sessionID: String)
        /// Another account confirmed this email address first.
        case emailConfirmedElsewhere
    }

    public let kind: Kind
    public let message: String
    /// The named refusal, when this is one.
    public let reason: Reason?

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
        self.reason = nil
    }

    /// The error for `reason`, its message written here.
    public init(_ reason: Reason) {
        self.reason = reason
        switch reason {
        case .notVouched(let objectID, let priceID):
            kind = .invalid
            message = "\(objectID) (price \(priceID)) was not started here and its price is in neither plans nor entitlements"
        case .durationMissing(let productID):
            kind = .invalid
            message =
                "\(productID) is a non-renewing subscription with no duration: set \(ProductDurations.key(for: productID)) (days of access from the purchase)"
        case .unusableCheckout(let sessionID):
            kind = .invalid
            message = "checkout session \(sessionID) has no subscription or payment to record"
        case .emailConfirmedElsewhere:
            kind = .conflict
            message = "another account confirmed this email address first"
        }
    }

    /// `kind: message`; a named refusal is its message alone (the text logs have always carried).
    public var description: String { reason == nil ? "\(kind.rawValue): \(message)" : message }
}

extension DomainError {
    /// Whether this is a Stripe object Tollgate acknowledges and drops: one it does not vouch for,
    /// or a paid checkout session that stands for no purchase.
    public var dropsStripeObject: Bool {
        switch reason {
        case .notVouched?, .unusableCheckout?: true
        default: false
        }
    }

    /// The product of a `durationMissing` refusal, nil for any other error.
    public var missingDurationProductID: String? {
        if case .durationMissing(let productID)? = reason { productID } else { nil }
    }
}
