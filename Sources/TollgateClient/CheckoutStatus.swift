import Foundation

/// The state of a web checkout the app started (`GET /api/v1/checkout/{checkout_context_id}`).
@available(iOS 16, macOS 13, tvOS 16, watchOS 9, *)
public enum CheckoutStatus: Sendable, Equatable {
    /// Not paid yet, or the browser has not reached `/checkout/start` yet; poll again after
    /// `pollAfter` (the service's `poll_after_seconds`) when it said.
    case pending(pollAfter: Duration?)
    /// Paid and linked to the app user; `result` is the redemption outcome (nil for a caller
    /// who is not that app user).
    case complete(result: RedemptionResult?)
    /// Payment failed or the checkout expired.
    case failed

    struct Wire: Decodable {
        let status: String
        let result: RedemptionResult?
        let pollAfterSeconds: Double?

        enum CodingKeys: String, CodingKey {
            case status, result
            case pollAfterSeconds = "poll_after_seconds"
        }

        /// - Throws: `TollgateClientError` for a status this client does not know.
        func status(requestID: String?) throws -> CheckoutStatus {
            switch status {
            case "pending": return .pending(pollAfter: pollAfterSeconds.map { .milliseconds(Int($0 * 1000)) })
            case "complete": return .complete(result: result)
            case "failed": return .failed
            default: throw TollgateClientError.invalidResponse("Unknown checkout status \(status).", status: 200, requestID: requestID)
            }
        }
    }
}
