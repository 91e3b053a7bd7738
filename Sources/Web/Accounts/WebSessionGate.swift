import Domain
import Foundation
import HTTPCore
import HTTPRouting
import UseCases

/// What every web-account route does around its use case: finds the cookie session (sliding its
/// expiry, and sending the cookie again when it moved), issues and checks the CSRF token of each
/// form, and sets or clears the cookies.
struct WebSessionGate: Sendable {
    let signIn: WebSignIn
    let forms: FormTokens
    let cookies: WebCookies
    let now: @Sendable () -> Date

    /// The signed-in session, or nil.
    func session(_ request: HTTPRequest) async throws -> WebSignIn.Session? {
        try await signIn.session(WebCookies.value(WebCookies.session, in: request), now: now())
    }

    /// The session's form token.
    func formToken(for session: WebSignIn.Session) throws -> String {
        try forms.token(for: .session(session.id))
    }

    /// The posted form's fields once its CSRF token matches `session`.
    /// - Throws: `APIError.forbidden` when it does not.
    func form(_ request: HTTPRequest, session: WebSignIn.Session) throws -> [String: String] {
        let fields = Self.fields(request)
        guard forms.isValid(fields["csrf"], for: .session(session.id)) else { throw Self.staleForm }
        return fields
    }

    /// The visitor value a sign-in form is bound to: the request's, or a new one to set.
    func visitor(_ request: HTTPRequest) throws -> (value: String, isNew: Bool) {
        if let value = WebCookies.value(WebCookies.visitor, in: request) { return (value, false) }
        return (try OpaqueToken.generate(), true)
    }

    /// A sign-in form's fields once its CSRF token matches the visitor cookie.
    /// - Throws: `APIError.forbidden` when it does not (or the browser keeps no cookies).
    func visitorForm(_ request: HTTPRequest) throws -> [String: String] {
        let fields = Self.fields(request)
        guard let visitor = WebCookies.value(WebCookies.visitor, in: request), forms.isValid(fields["csrf"], for: .visitor(visitor))
        else { throw Self.staleForm }
        return fields
    }

    /// `response` with the visitor cookie set when it is new.
    func withVisitor(_ response: HTTPResponse, _ visitor: (value: String, isNew: Bool)) -> HTTPResponse {
        guard visitor.isNew else { return response }
        var response = response
        response.headers.add("Set-Cookie", cookies.setCookie(WebCookies.visitor, visitor.value, maxAge: WebCookies.visitorLifetime))
        return response
    }

    /// `response` with the session cookie sent again (a fresh `Max-Age`) when the session's
    /// expiry moved on this request.
    func refreshed(_ response: HTTPResponse, _ session: WebSignIn.Session, request: HTTPRequest) -> HTTPResponse {
        guard session.extended, let value = WebCookies.value(WebCookies.session, in: request) else { return response }
        var response = response
        response.headers.add("Set-Cookie", sessionCookie(value, session))
        return response
    }

    /// `response` that signs the browser in with `issued`.
    func signingIn(_ response: HTTPResponse, _ issued: WebSignIn.Issued) -> HTTPResponse {
        var response = response
        response.headers.add("Set-Cookie", sessionCookie(issued.cookieValue, issued.session))
        response.headers.set("Cache-Control", "no-store")
        return response
    }

    /// `response` that removes the session cookie.
    func signingOut(_ response: HTTPResponse) -> HTTPResponse {
        var response = response
        response.headers.add("Set-Cookie", cookies.setCookie(WebCookies.session, "", maxAge: 0))
        return response
    }

    private func sessionCookie(_ value: String, _ session: WebSignIn.Session) -> String {
        cookies.setCookie(WebCookies.session, value, maxAge: max(0, Int(session.expiresAt.timeIntervalSince(now()))))
    }

    /// The fields of an `application/x-www-form-urlencoded` body (the first of a repeated name).
    static func fields(_ request: HTTPRequest) -> [String: String] {
        var fields: [String: String] = [:]
        for (name, value) in FormURLEncoding.decode(String(decoding: request.body, as: UTF8.self)) where fields[name] == nil {
            fields[name] = value
        }
        return fields
    }

    static let staleForm = APIError.forbidden(
        "This form has expired or came from another site. Go back, reload the page and send it again."
    ).onPage(.errorStaleForm)
}
