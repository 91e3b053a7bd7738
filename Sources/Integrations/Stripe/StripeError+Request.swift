extension StripeError {
    /// A request Tollgate refused to send to Stripe because Stripe would reject it (metadata over
    /// Stripe's limits, an id that is not a Stripe id, a bad idempotency key) or because the client
    /// is misconfigured.
    public struct Request: Sendable, Equatable, CustomStringConvertible {
        /// What is wrong.
        public enum Reason: Sendable, Equatable {
            /// More than 50 metadata keys.
            case tooManyMetadataKeys
            /// A metadata key empty, over 40 characters, or containing `[` / `]`.
            case invalidMetadataKey
            /// A metadata value over 500 characters.
            case metadataValueTooLong
            /// Another parameter is empty, too long or invalid.
            case invalidParameter
            /// An object id without the expected prefix or with unsafe characters.
            case invalidID
            /// An idempotency key empty, over 255 characters or not printable ASCII.
            case invalidIdempotencyKey
            /// The configured API base URL cannot form a request URL.
            case invalidConfiguration
        }

        public let reason: Reason
        /// What to fix, naming the parameter; never a secret.
        public let message: String

        /// A request error.
        public init(_ reason: Reason, _ message: String) {
            self.reason = reason
            self.message = message
        }

        public var description: String { message }
    }
}
