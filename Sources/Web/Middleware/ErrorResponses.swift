import HTTPCore
import HTTPRouting
import UseCases

/// Turns what a handler throws into API.md's error shape, in one place: JSON on machine paths
/// (`/api`, `/admin`, `/webhooks`, ...), an HTML page elsewhere. `APIError` and `UseCaseError`
/// keep their status and code; a storage conflict or wait a retry may cure is a retryable 503;
/// anything else is logged with the request id and becomes a bare 500.
struct ErrorResponses: Sendable {
    let pages: Pages

    /// The answer to `error`, thrown while serving `request`; a transient storage failure is
    /// logged as `storage_busy`, anything mapped to a bare 500 as `unhandled_error`.
    func response(for error: any Error, request: HTTPRequest, context: RequestContext) -> HTTPResponse {
        let mapped = APIError.mapping(error)
        if UseCaseError(transientStorageFailure: error) != nil {
            context.logger.warning("storage_busy", [("route", .string(context.route ?? "unmatched"))])
        } else if mapped == .internalError {
            context.logger.error(
                "unhandled_error",
                [
                    ("route", .string(context.route ?? "unmatched")), ("error", .string(String(describing: type(of: error))))
                ])
        }
        return response(for: mapped, request: request)
    }

    /// JSON for machine paths (with the developer's English `message`), an HTML page in the
    /// buyer's language for browser paths (the catalog's words for the code; `Pages.errorPage`).
    func response(for error: APIError, request: HTTPRequest) -> HTTPResponse {
        if Self.isMachinePath(request.path) {
            return .apiError(error)
        }
        var response = pages.errorPage(for: error, language: pages.language(for: request))
        if let seconds = error.retryAfterSeconds {
            response.headers.set("Retry-After", String(seconds))
        }
        return response
    }

    /// Paths whose callers are programs, not browsers: errors there are JSON.
    static func isMachinePath(_ path: String) -> Bool {
        for prefix in ["/api", "/admin", "/webhooks", "/.well-known"] where path.hasPrefix(prefix) {
            let rest = path.dropFirst(prefix.count)
            if rest.isEmpty || rest.hasPrefix("/") { return true }
        }
        return ["/receipts", "/auth/token", "/healthz", "/readyz", "/metrics", "/openapi.json", "/gonative/products.json", "/gonative/receipt"]
            .contains(path)
    }
}

extension APIError {
    /// The API error for anything a handler throws (`internalError` for what is not a client's).
    static func mapping(_ error: any Error) -> APIError {
        switch error {
        case let error as APIError: error
        case let error as UseCaseError: APIError(error)
        case let error as any HTTPResponseError: APIError(status: error.status, code: error.code, message: error.message)
        default: UseCaseError(transientStorageFailure: error).map(APIError.init) ?? .internalError
        }
    }

    /// A use case's refusal at the HTTP boundary.
    init(_ error: UseCaseError) {
        let status: HTTPStatus
        switch error.kind {
        case .badRequest: status = .badRequest
        case .unauthorized: status = .unauthorized
        case .forbidden: status = .forbidden
        case .notFound: status = .notFound
        case .conflict: status = .conflict
        case .gone: status = HTTPStatus(code: 410)
        case .unprocessable: status = .unprocessableContent
        case .rateLimited: status = .tooManyRequests
        case .upstreamUnavailable: status = .badGateway
        case .unavailable, .notConfigured: status = .serviceUnavailable
        }
        self.init(status: status, code: error.code, message: error.message, retryAfterSeconds: error.retryAfterSeconds)
    }
}
