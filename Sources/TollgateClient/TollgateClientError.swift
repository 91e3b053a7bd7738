import Foundation

/// Every failure the client throws: an API error of the service (API.md's
/// `{"error": {"code", "message", "retryable"}}`) or a client-side one (network, a response
/// it cannot read, no stored session). Domain outcomes such as an invalid code are not
/// errors: they are cases of `RedemptionResult`.
@available(iOS 16, macOS 13, tvOS 16, watchOS 9, *)
public struct TollgateClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A machine-readable error code: API.md's `error.code`, or one of the client's own.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code as the service spells it (`rate_limited`).
        public let rawValue: String
        /// Wraps a code as the service or the client spells it.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The raw code.
        /// `HTTP 429 rate_limited: ...`, for logs.
        public var description: String { rawValue }

        /// `400`: the request is malformed; the message names what is wrong.
        public static let badRequest = Code(rawValue: "bad_request")
        /// `401`: the API key or the access token is not accepted.
        public static let unauthorized = Code(rawValue: "unauthorized")
        /// `404`: nothing at this address.
        public static let notFound = Code(rawValue: "not_found")
        /// `409`: an `Idempotency-Key` reused with another request, or another conflict.
        public static let conflict = Code(rawValue: "conflict")
        /// `409` from a store claim under `on_other_user: reject`.
        public static let purchaseBelongsToOtherUser = Code(rawValue: "purchase_belongs_to_other_user")
        /// `422` from a store claim: the store rejected the purchase.
        public static let invalidReceipt = Code(rawValue: "invalid_receipt")
        /// `400` from `/auth/token`: the code or refresh token is unknown, expired or used.
        public static let invalidGrant = Code(rawValue: "invalid_grant")
        /// `429`: too many requests; `retryAfter` says when to try again.
        public static let rateLimited = Code(rawValue: "rate_limited")
        /// `502`/`503`: a store or payment provider is unreachable; retryable.
        public static let upstreamUnavailable = Code(rawValue: "upstream_unavailable")
        /// `503`: the feature is not configured on this service; not retryable.
        public static let notConfigured = Code(rawValue: "not_configured")
        /// `500`: something failed inside the service.
        public static let `internal` = Code(rawValue: "internal")
        /// Client side: no answer from the service (offline, DNS, refused, dropped, timed out).
        public static let network = Code(rawValue: "network")
        /// Client side: the service answered something this client cannot read.
        public static let invalidResponse = Code(rawValue: "invalid_response")
        /// Client side: the call needs a signed-in session and none is stored.
        public static let notSignedIn = Code(rawValue: "not_signed_in")
    }

    /// What went wrong, for code to switch on.
    public let code: Code
    /// A sentence a person can act on (the service's `error.message` when it sent one).
    public let message: String
    /// Whether the same call may succeed later (API.md's `retryable`).
    public let retryable: Bool
    /// The HTTP status, or nil when no response was received.
    public let status: Int?
    /// How long the service asked to wait (`Retry-After`), when it said.
    public let retryAfter: Duration?
    /// The service's `X-Request-Id`, for support requests.
    public let requestID: String?

    /// Makes an error; the client makes these, apps mostly read them.
    public init(code: Code, message: String, retryable: Bool, status: Int? = nil, retryAfter: Duration? = nil, requestID: String? = nil) {
        self.code = code
        self.message = message
        self.retryable = retryable
        self.status = status
        self.retryAfter = retryAfter
        self.requestID = requestID
    }

    public var description: String {
        let status = status.map { "HTTP \($0) " } ?? ""
        return "\(status)\(code.rawValue): \(message)"
    }

    static func network(_ error: URLError, attempts: Int) -> TollgateClientError {
        TollgateClientError(
            code: .network,
            message: "The service did not answer after \(attempts) attempt(s) (URLError \(error.code.rawValue)); check the connection and try again.",
            retryable: true)
    }

    static func invalidResponse(_ what: String, status: Int? = nil, requestID: String? = nil) -> TollgateClientError {
        TollgateClientError(code: .invalidResponse, message: what, retryable: false, status: status, requestID: requestID)
    }

    static let notSignedIn = TollgateClientError(
        code: .notSignedIn, message: "No session is stored: redeem a code or sign in first.", retryable: false)
}
