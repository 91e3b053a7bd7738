import HTTPCore
import HTTPRouting

/// The hosted checkout's refusals reach the buyer as the site shows any error: with their status
/// and code (`DemoRoutes`).
extension StripeSimulator.FormError: HTTPResponseError {
    public var status: HTTPStatus {
        switch kind {
        case .notFound: .notFound
        case .forbidden: .forbidden
        case .invalid: .badRequest
        }
    }

    public var code: String {
        switch kind {
        case .notFound: "not_found"
        case .forbidden: "forbidden"
        case .invalid: "bad_request"
        }
    }

    public var message: String { description }
}
