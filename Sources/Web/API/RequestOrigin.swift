import Foundation
import HTTPCore

/// Whether a browser's cookie-bearing POST comes from this service's own pages: its `Origin`
/// header, when sent, must be `base_url`'s origin (scheme, host and port). A request without
/// `Origin` (a native app, an older web view) is not foreign; `Origin: null` is.
enum RequestOrigin {
    /// `scheme://host[:port]` of `url`, lower-cased, the scheme's default port left out; nil when
    /// `url` has no scheme and host.
    static func origin(of url: String) -> String? {
        guard let schemeEnd = url.range(of: "://") else { return nil }
        let scheme = url[..<schemeEnd.lowerBound].lowercased()
        let rest = url[schemeEnd.upperBound...]
        var authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }.lowercased()
        guard !scheme.isEmpty, !authority.isEmpty, !authority.contains("@") else { return nil }
        let defaultPort = scheme == "https" ? ":443" : scheme == "http" ? ":80" : nil
        if let defaultPort, authority.hasSuffix(defaultPort) { authority.removeLast(defaultPort.count) }
        return scheme + "://" + authority
    }

    /// Whether `request` names an `Origin` other than `baseURL`'s.
    static func isForeign(_ request: HTTPRequest, baseURL: String) -> Bool {
        guard let sent = request.headers["Origin"] else { return false }
        guard let own = origin(of: baseURL), let theirs = origin(of: sent.trimmingCharacters(in: .whitespaces)) else { return true }
        return own != theirs
    }
}
