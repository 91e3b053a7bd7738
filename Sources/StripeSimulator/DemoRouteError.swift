import HTTPCore
import HTTPRouting

/// A refusal of the demo's routes, with the status and code the web layer shows it with.
public struct DemoRouteError: HTTPResponseError, Sendable {
    public let status: HTTPStatus
    public let code: String
    public let message: String
}
