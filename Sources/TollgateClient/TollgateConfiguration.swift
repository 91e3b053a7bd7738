import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Where the service is and how to talk to it.
@available(iOS 16, macOS 13, tvOS 16, watchOS 9, *)
public struct TollgateConfiguration: Sendable {
    /// The service's base URL, e.g. `https://pay.example.com` (the `base_url` of its config).
    public var baseURL: URL
    /// The public app key, sent as `X-Api-Key` (one of the service's `api_keys.public`).
    public var apiKey: String
    /// The app's URL scheme (`app.scheme` of the service), for parsing deep links; nil accepts
    /// any custom scheme.
    public var appScheme: String?
    /// The session requests go through; inject one to add a proxy, pinning or a test protocol.
    public var session: URLSession
    /// Retries of calls that failed on the way.
    public var retryPolicy: RetryPolicy
    /// How long one attempt may take before it counts as a network failure.
    public var requestTimeout: Duration

    /// - Parameters: see the properties. The default session is an ephemeral one (no cookies,
    ///   no cache): tokens live in the `TokenStorage`, nowhere else.
    public init(
        baseURL: URL, apiKey: String, appScheme: String? = nil, session: URLSession? = nil,
        retryPolicy: RetryPolicy = .standard, requestTimeout: Duration = .seconds(30)
    ) {
        self.baseURL = baseURL
        self.apiKey = apiKey
        self.appScheme = appScheme
        self.session = session ?? Self.ephemeralSession()
        self.retryPolicy = retryPolicy
        self.requestTimeout = requestTimeout
    }

    /// `baseURL` + `path` (under the base URL's own path) + `query`, escaped as forms are.
    func url(path: String, query: [URLQueryItem]) -> URL? {
        guard var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false) else { return nil }
        let basePath = components.percentEncodedPath.hasSuffix("/") ? String(components.percentEncodedPath.dropLast()) : components.percentEncodedPath
        components.percentEncodedPath = basePath + path
        if !query.isEmpty { components.percentEncodedQuery = FormEncoding.query(query) }
        return components.url
    }

    static func ephemeralSession() -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return URLSession(configuration: configuration)
    }
}
