import HTTPCore

extension PageText {
    /// The catalog text an HTML error page shows for API.md's error `code` (the JSON API's
    /// `message` is for developers and stays English): the code's own key when it has one, else
    /// the key of its status's generic code, so every error a page can show has words in every
    /// catalog.
    static func error(code: String, status: HTTPStatus) -> PageText {
        if let own = PageText(rawValue: errorPrefix + code), own.isErrorText { return own }
        switch status.code {
        case 401: return .errorUnauthorized
        case 403: return .errorForbidden
        case 404: return .errorNotFound
        case 405: return .errorMethodNotAllowed
        case 409: return .errorConflict
        case 410: return .errorGone
        case 415: return .errorUnsupportedMediaType
        case 422: return .errorUnprocessable
        case 429: return .errorRateLimited
        case 502, 503, 504: return .errorUpstreamUnavailable
        default: return status.code >= 500 ? .errorInternal : .errorBadRequest
        }
    }

    /// Whether this is the text of an error code (`error.code.*`).
    var isErrorText: Bool { rawValue.hasPrefix(Self.errorPrefix) }

    static let errorPrefix = "error.code."
}
