import HTTPCore
import HTTPRouting

/// Headers every HTML page carries: a strict Content-Security-Policy that allows only this
/// origin (no inline script, no other host), no sniffing, no referrer, no framing.
public enum SecurityHeaders {
    public static let contentSecurityPolicy =
        "default-src 'none'; style-src 'self'; img-src 'self' data:; script-src 'self'; "
        + "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

    /// The policy of a page whose forms may lead to `origins` (a form whose answer redirects to
    /// another site, as "manage billing" does to Stripe's portal).
    public static func contentSecurityPolicy(formActions origins: [String]) -> String {
        contentSecurityPolicy.replacingOccurrences(
            of: "form-action 'self'", with: (["form-action 'self'"] + origins).joined(separator: " "))
    }

    /// `Strict-Transport-Security` on every answer of a service whose `base_url` is https: a year,
    /// subdomains left alone (they may be other services).
    public static let strictTransportSecurity = "max-age=31536000"

    /// Adds the HTML security headers when `response` is HTML (keeping a policy the page set
    /// itself, which only ever widens `form-action`); adds `nosniff` to everything, and
    /// `Strict-Transport-Security` to everything when `https` (the service's `base_url` is https).
    public static func apply(to response: inout HTTPResponse, https: Bool = false) {
        // A response prepared after this very step (a pre-rendered page) has nothing to add.
        if response.headers.isPrepared(tag: preparedTag(https: https)) { return }
        response.headers.set("X-Content-Type-Options", "nosniff")
        if https { response.headers.set("Strict-Transport-Security", strictTransportSecurity) }
        guard let type = response.headers["Content-Type"], type.hasPrefix("text/html") else { return }
        if response.headers["Content-Security-Policy"] == nil {
            response.headers.set("Content-Security-Policy", contentSecurityPolicy)
        }
        response.headers.set("Referrer-Policy", "no-referrer")
        response.headers.set("X-Frame-Options", "DENY")
    }
}

extension SecurityHeaders {
    /// Applies the headers to a response that many requests will share as it is, and prepares
    /// its fields for the wire (`HTTPHeaders.prepare(tag:)`): the middleware then leaves it alone
    /// and the server writes its fields without checking each one again.
    public static func applyAndPrepare(to response: inout HTTPResponse, https: Bool = false) {
        apply(to: &response, https: https)
        response.headers.prepare(tag: preparedTag(https: https))
    }

    /// The tag of fields prepared right after `apply(to:https:)` with this `https`.
    static func preparedTag(https: Bool) -> String {
        https ? "security-headers+hsts" : "security-headers"
    }
}
