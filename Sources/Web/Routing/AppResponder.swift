import HTTPCore
import HTTPRouting
import Logging

/// The application's `HTTPResponder`: every route runs inside the `Edge` (metrics, request log,
/// security headers, error mapping, then the strict JSON check reading the body as the route
/// declared, `Router.Route.jsonBody`), whose steps `respond` runs itself, and then behind its
/// group's middleware. The chains are built once, at start-up; a request is matched once and runs
/// its route's chain.
public struct AppResponder: HTTPResponder {
    public let router: Router
    /// Each route's edge, by `Router.Route.index`.
    private let edges: [Edge]
    /// For requests no route takes: 404, or 405 with `Allow`, inside `unmatchedEdge`.
    private let unmatched: any HTTPHandler
    private let unmatchedEdge: Edge
    /// Whether every answer carries `Strict-Transport-Security` (`base_url` is https).
    private let https: Bool

    /// - Parameter routes: the routes with their group middleware; the global chain is added here.
    /// - Parameter https: whether `base_url` is https: then every answer, protocol errors included,
    ///   carries `Strict-Transport-Security`.
    public init(routes: Router, metrics: Metrics, pages: Pages, https: Bool = false) {
        self.https = https
        let errors = ErrorResponses(pages: pages)
        func edge(_ reading: JSONBodyReading) -> Edge {
            Edge(metrics: metrics, errors: errors, https: https, strictJSON: StrictJSONCheck(reading: reading))
        }
        router = routes
        edges = routes.routes.map { edge($0.jsonBody) }
        // No route reads the body of a request none takes: it is checked, not parsed.
        unmatchedEdge = edge(.validatedOnly)
        unmatched = ClosureHandler { [routes] request, _ in
            guard case .methodNotAllowed(let allowed) = routes.match(method: request.method, path: request.path) else {
                throw APIError.notFound()
            }
            let names = allowed.map(\.rawValue)
            let error = APIError(
                status: .methodNotAllowed, code: "method_not_allowed",
                message: "\(request.method) is not allowed here; use \(names.joined(separator: " or ")).")
            var response = errors.response(for: error, request: request)
            response.headers.set("Allow", names.joined(separator: ", "))
            return response
        }
    }

    /// Matches the route once, when the head is read; `respond` gets the match back.
    public func plan(method: HTTPMethod, path: String) -> RoutePlan {
        guard case .found(let route, let parameters) = router.match(method: method, path: path) else { return RoutePlan() }
        return RoutePlan(maxBodyBytes: route.maxBodyBytes, route: route.index, parameters: parameters)
    }

    public func respond(to request: HTTPRequest, plan: RoutePlan, info: RequestInfo) async -> HTTPResponse {
        let edge: Edge, handler: any HTTPHandler, context: RequestContext
        if let index = plan.route {
            let route = router.routes[index]
            (edge, handler, context) = (edges[index], route.handler, RequestContext(info, parameters: plan.parameters, route: route.pattern))
        } else {
            (edge, handler, context) = (unmatchedEdge, unmatched, RequestContext(info))
        }
        let started = edge.start()
        var response: HTTPResponse
        do {
            response = try await handler.handle(request, context: edge.admit(request, context: context))
        } catch {
            response = edge.failure(error, request: request, context: context)
        }
        edge.finish(&response, request: request, context: context, started: started)
        return response
    }

    /// Routes a request without the server (tests, tools): plans and responds in one step.
    public func respond(to request: HTTPRequest, context: RequestContext) async -> HTTPResponse {
        let info = RequestInfo(
            requestId: context.requestId, logger: context.logger, remoteAddress: context.remoteAddress, maxBodyBytes: context.maxBodyBytes)
        return await respond(to: request, plan: plan(method: request.method, path: request.path), info: info)
    }

    public func protocolErrorResponse(status: HTTPStatus, message: String, info: RequestInfo) -> HTTPResponse {
        info.logger.info("rejected", [("status", .int(status.code)), ("reason", .string(message))])
        var response = HTTPResponse.apiError(APIError(status: status, code: APIError.code(for: status), message: message))
        SecurityHeaders.apply(to: &response, https: https)
        return response
    }

    /// Paths whose callers are programs, not browsers: errors there are JSON.
    static func isMachinePath(_ path: String) -> Bool { ErrorResponses.isMachinePath(path) }
}
