extension AppStoreError {
    /// The legacy `verifyReceipt` endpoint rejected the receipt, or the receipt is not for this app.
    /// (An endpoint that is down or asks to retry is `UpstreamError`.)
    public struct Receipt: Sendable, Equatable, CustomStringConvertible {
        /// What was wrong with the receipt.
        public enum Kind: String, Sendable, Equatable, CaseIterable {
            /// Apple refused the receipt: `status` 21002 (malformed), 21003 (not authentic), 21004
            /// (shared secret mismatch), 21010 (account not found or deleted) or another final status.
            case invalidReceipt = "invalid_receipt"
            /// A valid receipt of another app (`receipt.bundle_id`).
            case wrongBundleID = "wrong_bundle_id"
            /// A valid receipt without any in-app purchase.
            case noPurchase = "no_purchase"
        }

        /// What was wrong.
        public let kind: Kind
        /// Apple's `status`, for `.invalidReceipt`.
        public let status: Int?
        /// A sentence a person can act on, without the receipt or the shared secret.
        public let message: String

        /// Creates an error of `kind`.
        public init(_ kind: Kind, status: Int? = nil, _ message: String) {
            self.kind = kind
            self.status = status
            self.message = message
        }

        /// `kind: message`.
        public var description: String { "\(kind.rawValue): \(message)" }
    }
}
