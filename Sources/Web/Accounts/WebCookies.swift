import HTTPCore

/// The web account's cookies: `tollgate_session` (the signed-in session, 30 days sliding) and
/// `tollgate_visitor` (a random value the sign-in forms' CSRF tokens are bound to before there is
/// a session). Both `HttpOnly`, `SameSite=Lax`, `Path=/`, and `Secure` whenever `base_url` is https.
struct WebCookies: Sendable {
    static let session = "tollgate_session"
    static let visitor = "tollgate_visitor"
    /// A visitor cookie outlives a sign-in form left open for a while.
    static let visitorLifetime = 86400

    let secure: Bool

    init(baseURL: String) {
        secure = baseURL.hasPrefix("https://")
    }

    /// The value of cookie `name` in the request (the first one when it is sent twice); nil when
    /// absent or empty.
    static func value(_ name: String, in request: HTTPRequest) -> String? {
        for header in request.headers.values(for: "Cookie") {
            for pair in header.split(separator: ";") {
                let trimmed = pair.drop { $0 == " " }
                guard let equals = trimmed.firstIndex(of: "="), trimmed[..<equals] == name else { continue }
                let value = String(trimmed[trimmed.index(after: equals)...])
                return value.isEmpty || value.utf8.count > 256 ? nil : value
            }
        }
        return nil
    }

    /// `Set-Cookie` for `name` = `value`, living `maxAge` seconds (0 deletes it).
    func setCookie(_ name: String, _ value: String, maxAge: Int) -> String {
        var text = "\(name)=\(value); Path=/; Max-Age=\(maxAge); HttpOnly; SameSite=Lax"
        if secure { text += "; Secure" }
        return text
    }
}
