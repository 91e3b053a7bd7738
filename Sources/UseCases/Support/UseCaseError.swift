/// A request a use case refuses, with the API.md error code it answers with. The web layer maps
/// `kind` to an HTTP status in one place (`APIError.init(_: UseCaseError)`); nothing here knows HTTP.
public struct UseCaseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of refusal, for the status it maps to.
    public enum Kind: Sendable, Equatable {
        /// 400: the input is malformed or incomplete.
        case badRequest
        /// 401: missing or invalid credentials.
        case unauthorized
        /// 403: understood, but not allowed.
        case forbidden
        /// 404: nothing by that name.
        case notFound
        /// 409: conflicts with the current state.
        case conflict
        /// 410: a one-time link that was used or has expired.
        case gone
        /// 422: well-formed, but its content is refused (an invalid receipt).
        case unprocessable
        /// 429: too many attempts; `retryAfterSeconds` says when to come back.
        case rateLimited
        /// 502: an upstream service (a store, Stripe) could not be reached or answered badly.
        case upstreamUnavailable
        /// 503: temporarily unable to serve (an upstream read failed; retry).
        case unavailable
        /// 503: the feature's configuration keys are not set (not retryable).
        case notConfigured
    }

    public let kind: Kind
    /// API.md's machine-readable code (`bad_request`, `invalid_receipt`, ...).
    public let code: String
    /// A sentence the caller can act on.
    public let message: String
    public let retryAfterSeconds: Int?

    public init(_ kind: Kind, code: String, _ message: String, retryAfterSeconds: Int? = nil) {
        self.kind = kind
        self.code = code
        self.message = message
        self.retryAfterSeconds = retryAfterSeconds
    }

    public var description: String { "\(code): \(message)" }

    public static func badRequest(_ message: String) -> UseCaseError { UseCaseError(.badRequest, code: "bad_request", message) }
    public static func unauthorized(_ message: String) -> UseCaseError { UseCaseError(.unauthorized, code: "unauthorized", message) }
    public static func forbidden(_ message: String) -> UseCaseError { UseCaseError(.forbidden, code: "forbidden", message) }
    public static func notFound(_ message: String) -> UseCaseError { UseCaseError(.notFound, code: "not_found", message) }
    public static func conflict(_ message: String, code: String = "conflict") -> UseCaseError { UseCaseError(.conflict, code: code, message) }
    public static func unprocessable(_ message: String, code: String = "unprocessable") -> UseCaseError {
        UseCaseError(.unprocessable, code: code, message)
    }
    public static func upstreamUnavailable(_ message: String) -> UseCaseError {
        UseCaseError(.upstreamUnavailable, code: "upstream_unavailable", message)
    }
    public static func unavailable(_ message: String) -> UseCaseError { UseCaseError(.unavailable, code: "upstream_unavailable", message) }
    public static func notConfigured(_ message: String) -> UseCaseError { UseCaseError(.notConfigured, code: "not_configured", message) }

    /// `409 purchase_belongs_to_other_user` (policy `reject`).
    public static let purchaseBelongsToOtherUser = UseCaseError.conflict(
        "This purchase belongs to another account.", code: "purchase_belongs_to_other_user")
}
