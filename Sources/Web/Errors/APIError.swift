import HTTPCore
import HTTPRouting

/// A client-visible failure with the error shape of API.md:
/// `{"error": {"code": "...", "message": "...", "retryable": false}}`.
public struct APIError: HTTPResponseError, Equatable {
    public let status: HTTPStatus
    public let code: String
    public let message: String
    /// Seconds for `Retry-After` (rate limits), when known.
    public let retryAfterSeconds: Int?
    /// What an HTML error page says, in the buyer's language, when this error has words more
    /// precise than its code's (`PageText.error(code:status:)`); the JSON keeps `message`.
    public let pageText: PageText?

    public init(status: HTTPStatus, code: String, message: String, retryAfterSeconds: Int? = nil, pageText: PageText? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.retryAfterSeconds = retryAfterSeconds
        self.pageText = pageText
    }

    /// This error, worded on an HTML page by `text` (a buyer-facing case of a generic code).
    public func onPage(_ text: PageText) -> APIError {
        APIError(status: status, code: code, message: message, retryAfterSeconds: retryAfterSeconds, pageText: text)
    }

    /// Whether a client should retry: true for 408, 429, 502 and 503, except `not_configured`
    /// (a missing setting does not fix itself).
    public var retryable: Bool { [408, 429, 502, 503].contains(status.code) && code != "not_configured" }

    public static func badRequest(_ message: String) -> APIError {
        APIError(status: .badRequest, code: "bad_request", message: message)
    }

    public static func unauthorized(_ message: String) -> APIError {
        APIError(status: .unauthorized, code: "unauthorized", message: message)
    }

    public static func forbidden(_ message: String) -> APIError {
        APIError(status: .forbidden, code: "forbidden", message: message)
    }

    public static func notFound(_ message: String = "There is nothing at this address.") -> APIError {
        APIError(status: .notFound, code: "not_found", message: message)
    }

    public static func conflict(_ message: String) -> APIError {
        APIError(status: .conflict, code: "conflict", message: message)
    }

    public static func unsupportedMediaType(_ message: String) -> APIError {
        APIError(status: .unsupportedMediaType, code: "unsupported_media_type", message: message)
    }

    public static func unprocessable(_ message: String, code: String = "unprocessable") -> APIError {
        APIError(status: .unprocessableContent, code: code, message: message)
    }

    public static func rateLimited(retryAfterSeconds: Int) -> APIError {
        APIError(
            status: .tooManyRequests, code: "rate_limited",
            message: "Too many requests; retry in \(retryAfterSeconds) s.", retryAfterSeconds: retryAfterSeconds)
    }

    public static func upstreamUnavailable(_ message: String) -> APIError {
        APIError(status: .badGateway, code: "upstream_unavailable", message: message)
    }

    /// The only body a 500 ever has: no details leak.
    public static let internalError = APIError(
        status: .internalServerError, code: "internal", message: "Something went wrong on our side.")

    /// The error code API.md uses for a bare status (server-side rejections).
    public static func code(for status: HTTPStatus) -> String {
        switch status.code {
        case 400: "bad_request"
        case 401: "unauthorized"
        case 403: "forbidden"
        case 404: "not_found"
        case 405: "method_not_allowed"
        case 408: "request_timeout"
        case 409: "conflict"
        case 411: "length_required"
        case 413: "payload_too_large"
        case 414: "uri_too_long"
        case 415: "unsupported_media_type"
        case 422: "unprocessable"
        case 429: "rate_limited"
        case 431: "header_fields_too_large"
        case 501: "not_implemented"
        case 502, 503: "upstream_unavailable"
        case 505: "http_version_not_supported"
        default: status.code >= 500 ? "internal" : "bad_request"
        }
    }
}
