/// A store or payment API that could not be used: unreachable, too slow, or answering
/// something we cannot read. The web layer answers `502 upstream_unavailable`.
public struct UpstreamError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Why the call failed.
    public enum Kind: Sendable, Equatable {
        case unreachable
        case timedOut
        /// An HTTP status the API should not have answered (5xx, 429, or unexpected).
        case badStatus(Int)
        /// A body we could not parse.
        case invalidResponse
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
        case .invalidResponse: false
        }
    }

    public var description: String { "\(service): \(message)" }
}
