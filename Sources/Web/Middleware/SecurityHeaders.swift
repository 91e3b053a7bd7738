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

/// Adds `SecurityHeaders` to every response.
struct SecurityHeadersMiddleware: Middleware {
    /// Whether `base_url` is https (then every answer carries `Strict-Transport-Security`).
    var https = false

    func handle(_ request: HTTPRequest, context: RequestContext, next: Next) async throws -> HTTPResponse {
        var response = try await next(request, context)
        SecurityHeaders.apply(to: &response, https: https)
        return response
    }
}
