import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A response the service answered with a `2xx`.
struct APIResponse: Sendable {
    let status: Int
    let body: Data
    let requestID: String?
}

/// Sends an `APIRequest` through URLSession, retrying per the policy and the request's
/// retry scope; turns every non-`2xx` answer into a `TollgateClientError`.
@available(iOS 16, macOS 13, tvOS 16, watchOS 9, *)
struct HTTPTransport: Sendable {
    let configuration: TollgateConfiguration

    /// URLError codes that mean the request never reached the service.
    private static let notSent: Set<URLError.Code> = [
        .cannotFindHost, .cannotConnectToHost, .dnsLookupFailed, .notConnectedToInternet, .secureConnectionFailed
    ]

    /// - Throws: `TollgateClientError` (the last attempt's), or `CancellationError`.
    func send(_ request: APIRequest, bearer: String?) async throws -> APIResponse {
        let urlRequest = try makeURLRequest(request, bearer: bearer)
        let policy = configuration.retryPolicy
        var attempt = 0
        while true {
            attempt += 1
            try Task.checkCancellation()
            let failure: TollgateClientError
            let mayRetry: Bool
            do {
                let (data, response) = try await configuration.session.data(for: urlRequest)
                guard let http = response as? HTTPURLResponse else { throw TollgateClientError.invalidResponse("Not an HTTP response.") }
                let requestID = http.value(forHTTPHeaderField: "X-Request-Id")
                if (200..<300).contains(http.statusCode) {
                    return APIResponse(status: http.statusCode, body: data, requestID: requestID)
                }
                failure = Self.error(
                    status: http.statusCode, body: data, retryAfter: http.value(forHTTPHeaderField: "Retry-After"), requestID: requestID)
                switch request.retry {
                case .safe:
                    mayRetry = (http.statusCode == 429 || http.statusCode == 408 || http.statusCode >= 500) && failure.code != .notConfigured
                case .unprocessedOnly: mayRetry = http.statusCode == 429
                }
            } catch let error as URLError {
                if error.code == .cancelled { throw CancellationError() }
                failure = .network(error, attempts: attempt)
                switch request.retry {
                case .safe: mayRetry = true
                case .unprocessedOnly: mayRetry = Self.notSent.contains(error.code)
                }
            }
            guard mayRetry, attempt < policy.maxAttempts,
                let wait = policy.delay(afterAttempt: attempt, retryAfter: failure.retryAfter)
            else { throw failure }
            try await Task.sleep(for: wait)
        }
    }

    private func makeURLRequest(_ request: APIRequest, bearer: String?) throws -> URLRequest {
        guard let url = configuration.url(path: request.path, query: request.query) else {
            throw TollgateClientError.invalidResponse("The base URL \(configuration.baseURL) cannot take the path \(request.path).")
        }
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = request.method
        urlRequest.timeoutInterval =
            Double(configuration.requestTimeout.components.seconds)
            + Double(configuration.requestTimeout.components.attoseconds) / 1e18
        urlRequest.setValue("application/json", forHTTPHeaderField: "Accept")
        urlRequest.setValue(configuration.apiKey, forHTTPHeaderField: "X-Api-Key")
        if let bearer { urlRequest.setValue("Bearer " + bearer, forHTTPHeaderField: "Authorization") }
        if let key = request.idempotencyKey { urlRequest.setValue(key, forHTTPHeaderField: "Idempotency-Key") }
        if let type = request.contentType { urlRequest.setValue(type, forHTTPHeaderField: "Content-Type") }
        urlRequest.httpBody = request.body
        return urlRequest
    }

    /// API.md's error object, or a code for the bare status when the body is not one (a proxy's page).
    static func error(status: Int, body: Data, retryAfter: String?, requestID: String?) -> TollgateClientError {
        struct Envelope: Decodable {
            struct Body: Decodable {
                let code: String?
                let message: String?
                let retryable: Bool?
            }
            let error: Body
        }
        let parsed = try? JSONDecoder().decode(Envelope.self, from: body).error
        let fallbackCode: TollgateClientError.Code =
            switch status {
            case 401: .unauthorized
            case 404: .notFound
            case 409: .conflict
            case 429: .rateLimited
            case 502, 503: .upstreamUnavailable
            case 500...: .internal
            default: .badRequest
            }
        return TollgateClientError(
            code: parsed?.code.map(TollgateClientError.Code.init(rawValue:)) ?? fallbackCode,
            message: parsed?.message ?? "The service answered HTTP \(status).",
            retryable: parsed?.retryable ?? [408, 429, 502, 503].contains(status),
            status: status, retryAfter: RetryPolicy.parseRetryAfter(retryAfter), requestID: requestID)
    }
}
