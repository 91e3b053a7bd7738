import HTTPCore
import HTTPRouting

/// The hosted checkout's refusals reach the buyer as the site shows any error: with their status
/// and code (`DemoRoutes`). A bad Stripe form body never gets here (the API answers Stripe's
/// error JSON), nor does a lifecycle failure (it is the command line's); they answer 400 and 502.
extension StripeSimulatorError: HTTPResponseError {
    public var status: HTTPStatus {
        switch kind {
        case .notFound: .notFound
        case .forbidden: .forbidden
        case .invalid, .invalidParameter: .badRequest
        case .actionFailed: .badGateway
        }
    }

    public var code: String {
        switch kind {
        case .notFound: "not_found"
        case .forbidden: "forbidden"
        case .invalid, .invalidParameter: "bad_request"
        case .actionFailed: "bad_gateway"
        }
    }
}
