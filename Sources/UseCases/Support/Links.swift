/// Absolute links to this service's pages and into the app, from `base_url` and `app.scheme`.
public struct Links: Sendable {
    /// `base_url` without a trailing slash.
    public let baseURL: String
    /// The app's custom URL scheme; empty when none is configured.
    public let appScheme: String

    public init(baseURL: String, appScheme: String) {
        self.baseURL = baseURL
        self.appScheme = appScheme
    }

    /// The absolute URL of `path` on this service.
    public func url(_ path: String) -> String { baseURL + path }

    /// `{scheme}://{path}` into the app, or nil when no scheme is configured.
    public func app(_ path: String) -> String? { appScheme.isEmpty ? nil : "\(appScheme)://\(path)" }
}
