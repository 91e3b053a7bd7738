extension StripeError {
    /// Why a Stripe webhook was rejected. The web layer answers `400` and stores nothing.
    public enum Webhook: Sendable, Equatable, CustomStringConvertible {
        /// No `Stripe-Signature` header.
        case missingHeader
        /// The header has no integer `t=` timestamp (or is absurdly long); the reason says which.
        case malformedHeader(reason: String)
        /// The header carries no `v1=` signature (Stripe's only current scheme; `v0` is ignored).
        case noV1Signature
        /// The signature is genuine but `t` is too far from now: `age` is now − t in seconds
        /// (negative when `t` is in the future).
        case timestampOutsideTolerance(ageSeconds: Int64, toleranceSeconds: Int64)
        /// No `v1` signature matches the body under the configured secret (wrong secret, altered
        /// body or timestamp).
        case noMatchingSignature

        public var description: String {
            switch self {
            case .missingHeader:
                "the Stripe-Signature header is missing"
            case .malformedHeader(let reason):
                "the Stripe-Signature header is malformed: \(reason)"
            case .noV1Signature:
                "the Stripe-Signature header has no v1 signature"
            case .timestampOutsideTolerance(let age, let tolerance) where age >= 0:
                "Stripe-Signature timestamp is \(age) s old; tolerance is \(tolerance) s"
            case .timestampOutsideTolerance(let age, let tolerance):
                "Stripe-Signature timestamp is \(age.magnitude) s in the future; tolerance is \(tolerance) s (check the server clock)"
            case .noMatchingSignature:
                "no Stripe-Signature v1 signature matches the body (wrong webhook secret, or the body was altered)"
            }
        }
    }
}
