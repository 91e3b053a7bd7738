import Foundation

/// A link the service sends the app to: a redemption (`{scheme}://redeem?code=CODE` from the
/// success page, or the universal link `https://host/redeem/CODE` from the email) or the
/// sign-in callback (`{scheme}://auth/callback?code=...` after a `login_url`).
@available(iOS 16, macOS 13, tvOS 16, watchOS 9, *)
public enum TollgateLink: Sendable, Equatable {
    /// Redeem `code` (normalized: upper case, no spaces, grouped `XXXX-XXXX-XXXX-XXXX` when it
    /// has the service's 16 characters).
    case redeem(code: String)
    /// Exchange `authorizationCode` with `Tollgate.signIn(authorizationCode:codeVerifier:)`.
    case signIn(authorizationCode: String)

    /// Parses `url`, or returns nil when it is not one of the service's links.
    /// - Parameters:
    ///   - appScheme: the app's scheme (`app.scheme` of the service); nil accepts any custom scheme.
    ///   - baseURL: the service's base URL; when given, a universal link must be on its host
    ///     and under its path. Nil accepts any `https` host.
    public init?(url: URL, appScheme: String? = nil, baseURL: URL? = nil) {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false), let scheme = components.scheme?.lowercased() else {
            return nil
        }
        let queryCode = components.queryItems?.first { $0.name == "code" }?.value
        let path = components.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        if scheme == "https" || scheme == "http" {
            var prefix: [String] = []
            if let baseURL {
                guard components.host?.lowercased() == baseURL.host?.lowercased() else { return nil }
                prefix = baseURL.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
            }
            guard path.count == prefix.count + 2, Array(path.prefix(prefix.count)) == prefix, path[prefix.count] == "redeem",
                let code = Self.normalize(path[prefix.count + 1])
            else { return nil }
            self = .redeem(code: code)
            return
        }
        if let appScheme, scheme != appScheme.lowercased() { return nil }
        switch components.host?.lowercased() {
        case "redeem":
            guard let code = (queryCode ?? (path.count == 1 ? path[0] : nil)).flatMap(Self.normalize) else { return nil }
            self = .redeem(code: code)
        case "auth":
            guard path == ["callback"], let code = queryCode, !code.isEmpty else { return nil }
            self = .signIn(authorizationCode: code)
        default:
            return nil
        }
    }

    /// The code an install referrer carries: the success page's Google Play fallback installs the
    /// app with `referrer=tollgate_code%3D<CODE>`, and the Play Install Referrer API hands the app
    /// `tollgate_code=<CODE>` (with any other `utm_*` pairs) at its first launch; redeem it then.
    /// Nil when the referrer names no code. A referrer still percent-encoded once is read too.
    public static func code(fromInstallReferrer referrer: String) -> String? {
        var text = referrer.trimmingCharacters(in: .whitespacesAndNewlines)
        if !text.contains("="), let decoded = text.removingPercentEncoding { text = decoded }
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, parts[0].removingPercentEncoding == "tollgate_code" else { continue }
            let value = parts[1].replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? parts[1]
            return normalize(value)
        }
        return nil
    }

    /// The code a user typed or a link carried, as the service reads it: case-insensitive,
    /// hyphens and spaces ignored. Nil when nothing but letters and digits remains, or too much.
    /// (The service also folds Crockford look-alikes, `O`→`0`, `I`/`L`→`1`; the client leaves that to it.)
    public static func normalize(_ code: String) -> String? {
        let compact = code.uppercased().filter { $0 != "-" && $0 != " " && $0 != "\u{00A0}" }
        guard (1...64).contains(compact.count), compact.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else { return nil }
        guard compact.count == 16 else { return compact }
        let characters = Array(compact)
        return stride(from: 0, to: 16, by: 4).map { String(characters[$0..<$0 + 4]) }.joined(separator: "-")
    }
}
