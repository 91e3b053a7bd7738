import Foundation

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

    /// The absolute URL of `path` for a mail written in `locale`: `locale=` (API.md's name for
    /// the buyer's language) first in its query, so the page the link opens speaks the mail's
    /// language rather than the browser's, and a token stays the link's tail. No locale: `url(path)`.
    public func url(_ path: String, locale: String?) -> String {
        guard let locale, !locale.isEmpty else { return url(path) }
        let escaped = locale.addingPercentEncoding(withAllowedCharacters: Self.tagCharacters) ?? ""
        let parts = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let query = parts.count > 1 ? "&" + parts[1] : ""
        return url(parts[0] + "?" + Self.localeParameter + "=" + escaped + query)
    }

    /// The query parameter a page reads the buyer's language from (API.md "The buyer's language").
    public static let localeParameter = "locale"

    /// The characters of a language tag (`pt-BR`); anything else is escaped.
    private static let tagCharacters = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")

    /// `{scheme}://{path}` into the app, or nil when no scheme is configured.
    public func app(_ path: String) -> String? { appScheme.isEmpty ? nil : "\(appScheme)://\(path)" }
}
