/// Google Play refused something, or a Google Play input is unusable. Outages are not
/// `GooglePlayError`s but `UpstreamError(service: "play_store")`.
///
/// Messages never contain the service account's private key or access tokens.
public struct GooglePlayError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        /// The service-account JSON is missing a field, or its key is not an RSA private key.
        case invalidServiceAccount = "invalid_service_account"
        /// Google's OAuth endpoint refused the service-account assertion (`invalid_grant`, ...).
        case tokenRejected = "token_rejected"
        /// The Play Developer API refused a freshly issued access token (401 after one refresh).
        case unauthorized
        /// The service account may not read this app's purchases (403): a Play Console setup problem.
        case permissionDenied = "permission_denied"
        /// The purchase token (or product id / package) is unknown, malformed or too old (400/404/410).
        /// The web layer answers `422 invalid_receipt`.
        case purchaseNotFound = "purchase_not_found"
        /// Google refused a request for another reason (e.g. acknowledging an acknowledged purchase).
        case requestRejected = "request_rejected"
        /// A Pub/Sub push body that is not a real-time developer notification. The web layer answers 400.
        case malformedNotification = "malformed_notification"
        /// A client parameter (package name, base URL) cannot form a request URL.
        case invalidConfiguration = "invalid_configuration"
    }

    /// What went wrong.
    public let kind: Kind
    /// A message an operator or user can act on; free of secrets.
    public let message: String

    /// Creates an error of `kind` with `message` (which must hold no secret).
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// Whether this is a deployment problem (service account, Play Console permissions, base
    /// URL) rather than something about the purchase the user sent.
    public var isConfigurationError: Bool {
        switch kind {
        case .invalidServiceAccount, .tokenRejected, .unauthorized, .permissionDenied, .invalidConfiguration: true
        case .purchaseNotFound, .requestRejected, .malformedNotification: false
        }
    }

    public var description: String { "google_play \(kind.rawValue): \(message)" }
}
