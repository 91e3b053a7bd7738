import HTTPCore

/// Work shared by the routes of a group (API key, admin token, rate limit, idempotency) or by
/// every request (request log, metrics, security headers, error mapping). It may answer
/// itself or call `next` and adjust what comes back.
public protocol Middleware: Sendable {
    /// - Throws: an `HTTPResponseError` for a client-visible refusal, or what `next` throws.
    func handle(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse
}

/// The rest of the chain after a middleware.
public typealias Next = @Sendable (HTTPRequest, RequestContext) async throws -> HTTPResponse

/// A handler behind a list of middleware, the first one outermost. Built once (at start-up);
/// running it allocates nothing.
public struct MiddlewareChain: HTTPHandler {
    let handler: Next

    public init(_ middleware: [any Middleware], handler: @escaping Next) {
        var next = handler
        for layer in middleware.reversed() {
            let inner = next
            next = { request, context in try await layer.handle(request, context: context, next: inner) }
        }
        self.handler = next
    }

    public func handle(_ request: HTTPRequest, context: RequestContext) async throws -> HTTPResponse {
        try await handler(request, context)
    }
}

/// Routes that share a middleware chain, declared together and added to a `Router`.
public struct RouteGroup {
    let middleware: [any Middleware]
    fileprivate var routes: [(method: HTTPMethod, pattern: String, maxBodyBytes: Int?, jsonBody: JSONBodyReading, handler: MiddlewareChain)] = []

    /// A group whose routes run behind `middleware` (the first one outermost).
    public init(_ middleware: [any Middleware] = []) { self.middleware = middleware }

    /// Adds a route; `extra` middleware run inside the group's, for this route only. `jsonBody`:
    /// whether a JSON body is parsed for it (the default) or only validated, its bytes left to it.
    public mutating func add(
        _ method: HTTPMethod, _ pattern: String, maxBodyBytes: Int? = nil, jsonBody: JSONBodyReading = .parsed,
        _ extra: [any Middleware] = [], _ handler: @escaping Next
    ) {
        routes.append((method, pattern, maxBodyBytes, jsonBody, MiddlewareChain(middleware + extra, handler: handler)))
    }
}

extension Router {
    /// Registers every route of `group`.
    public mutating func add(_ group: RouteGroup) {
        for route in group.routes {
            add(route.method, route.pattern, maxBodyBytes: route.maxBodyBytes, jsonBody: route.jsonBody, route.handler)
        }
    }
}
