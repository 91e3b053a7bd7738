extension AppStoreError {
    /// The App Store Server API rejected a request about a transaction (as opposed to being
    /// unreachable, which is `UpstreamError`, or rejecting our credentials, which is
    /// `AppStoreError.configuration`).
    public struct API: Sendable, Equatable, CustomStringConvertible {
        /// What was rejected.
        public enum Kind: String, Sendable, Equatable, CaseIterable {
            /// The transaction id is not a string of digits; nothing was sent.
            case invalidTransactionID = "invalid_transaction_id"
            /// Neither the production nor the sandbox App Store knows the transaction.
            case transactionNotFound = "transaction_not_found"
            /// The transaction is not an auto-renewable subscription (a consumable, non-consumable or
            /// non-renewing subscription), so it has no subscription status.
            case notASubscription = "not_a_subscription"
            /// Another 4xx answer (e.g. `400` with Apple's `errorCode` 4000006, invalid transaction id).
            case requestRejected = "request_rejected"
        }

        /// What was rejected.
        public let kind: Kind
        /// Apple's `errorCode` from the answer body, when there was one (e.g. 4040010).
        public let errorCode: Int?
        /// A sentence a person can act on.
        public let message: String

        /// Creates an error of `kind`.
        public init(_ kind: Kind, errorCode: Int? = nil, _ message: String) {
            self.kind = kind
            self.errorCode = errorCode
            self.message = message
        }

        /// `kind: message`.
        public var description: String { "\(kind.rawValue): \(message)" }
    }
}
