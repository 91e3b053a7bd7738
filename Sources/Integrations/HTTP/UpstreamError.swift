/// The Integrations module's own error: a store or payment API that could not be used
/// (unreachable, too slow, or answering something we cannot read; the web layer answers
/// `502 upstream_unavailable`), or a report to Apple or Google that cannot succeed as it is
/// (`.report`: a report queue gives up on it). What a service refuses otherwise is that service's
/// error: `StripeError`, `AppStoreError`, `GooglePlayError`.
public struct UpstreamError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Why the call failed.
    public enum Kind: Sendable, Equatable {
        case unreachable
        case timedOut
        /// An HTTP status the API should not have answered (5xx, 429, or unexpected).
        case badStatus(Int)
        /// A body we could not parse.
        case invalidResponse
        /// A report Tollgate would not send, or that the platform refused with a 4xx: sending it
        /// again unchanged would fail again.
        case report(Report)
    }

    /// `stripe`, `app_store`, `play_store`, ...
    public let service: String
    public let kind: Kind
    /// What happened, without secrets.
    public let message: String

    public init(service: String, kind: Kind, message: String) {
        self.service = service
        self.kind = kind
        self.message = message
    }

    /// Whether trying again later may succeed.
    public var retryable: Bool {
        switch kind {
        case .unreachable, .timedOut: true
        case .badStatus(let status): status >= 500 || status == 429
        case .invalidResponse, .report: false
        }
    }

    /// `service: message`; for a report, who refused it, the status, the code and the field errors.
    public var description: String {
        if case .report(let report) = kind { return report.description }
        return "\(service): \(message)"
    }
}
