import HTTPServer
import Logging

/// The application's `HTTPResponder`: routes each request, turns thrown errors into the
/// API.md error shape (JSON under `/api`, `/admin`, `/webhooks`; an HTML page elsewhere),
/// adds security headers, writes one log line and records metrics per request.
public struct AppResponder: HTTPResponder {
    public let router: Router
    let metrics: Metrics
    let pages: Pages

    public init(router: Router, metrics: Metrics, pages: Pages) {
        self.router = router
        self.metrics = metrics
        self.pages = pages
    }

    public func maxBodyBytes(method: HTTPMethod, path: String) -> Int? {
        if case .found(let route, _) = router.match(method: method, path: path) {
            return route.maxBodyBytes
        }
        return nil
    }

    public func respond(to request: HTTPRequest, context: RequestContext) async -> HTTPResponse {
        let started = MonotonicClock.seconds()
        metrics.requestStarted()
        var context = context
        var routeLabel = "unmatched"
        var response: HTTPResponse
        switch router.match(method: request.method, path: request.path) {
        case .found(let route, let parameters):
            routeLabel = route.pattern
            context.parameters = parameters
            context.route = route.pattern
            do {
                response = try await route.handler.handle(request, context: context)
            } catch let error as any HTTPResponseError {
                response = errorResponse(APIError(error), path: request.path)
            } catch {
                context.logger.error("unhandled_error", [("route", .string(route.pattern)), ("error", .string(String(describing: type(of: error))))])
                response = errorResponse(.internalError, path: request.path)
            }
        case .methodNotAllowed(let allowed):
            response = errorResponse(
                APIError(status: .methodNotAllowed, code: "method_not_allowed", message: "\(request.method) is not allowed here; use \(allowed.map(\.rawValue).joined(separator: " or ")).")
                , path: request.path)
            response.headers.set("Allow", allowed.map(\.rawValue).joined(separator: ", "))
        case .notFound:
            response = errorResponse(.notFound(), path: request.path)
        }
        SecurityHeaders.apply(to: &response)
        let seconds = MonotonicClock.seconds() - started
        metrics.requestFinished(method: request.method.rawValue, route: routeLabel, status: response.status.code, seconds: seconds)
        context.logger.info("request", [
            ("method", .string(request.method.rawValue)),
            ("route", .string(routeLabel)),
            ("status", .int(response.status.code)),
            ("duration_ms", .double((seconds * 1_000_000).rounded() / 1000)),
        ])
        return response
    }

    public func protocolErrorResponse(status: HTTPStatus, message: String, context: RequestContext) -> HTTPResponse {
        context.logger.info("rejected", [("status", .int(status.code)), ("reason", .string(message))])
        var response = HTTPResponse.apiError(APIError(status: status, code: APIError.code(for: status), message: message))
        SecurityHeaders.apply(to: &response)
        return response
    }

    /// JSON for machine paths, an HTML page for browser paths.
    func errorResponse(_ error: APIError, path: String) -> HTTPResponse {
        if AppResponder.isMachinePath(path) {
            return .apiError(error)
        }
        var response = pages.errorPage(status: error.status, message: error.message)
        if let seconds = error.retryAfterSeconds {
            response.headers.set("Retry-After", String(seconds))
        }
        return response
    }

    /// Paths whose callers are programs, not browsers: errors there are JSON.
    static func isMachinePath(_ path: String) -> Bool {
        for prefix in ["/api", "/admin", "/webhooks"] where path.hasPrefix(prefix) {
            let rest = path.dropFirst(prefix.count)
            if rest.isEmpty || rest.hasPrefix("/") { return true }
        }
        return ["/receipts", "/auth/token", "/healthz", "/readyz", "/metrics", "/openapi.json"].contains(path)
    }
}

extension APIError {
    /// Wraps any `HTTPResponseError` in the API.md shape.
    init(_ error: any HTTPResponseError) {
        if let error = error as? APIError {
            self = error
        } else {
            self.init(status: error.status, code: error.code, message: error.message)
        }
    }
}
