import HTTPCore
import HTTPRouting

/// Reads the app's `Authorization: Bearer <access_token>` once, for the routes that accept a
/// signed-in caller, into `RequestContext.bearerToken`. The use cases check the token in the
/// transaction that acts on it (`BearerSession`), so a session revoked meanwhile is never used.
/// A malformed header is refused here: 401 `unauthorized`.
struct BearerTokenMiddleware: Middleware {
    func handle(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        guard let header = request.headers["Authorization"] else { return try await next(request, context) }
        guard header.utf8.count > 7, header.prefix(7).lowercased() == "bearer " else {
            throw APIError.unauthorized("Authorization must be Bearer <access_token>.")
        }
        var context = context
        context.bearerToken = String(header.dropFirst(7))
        return try await next(request, context)
    }
}
