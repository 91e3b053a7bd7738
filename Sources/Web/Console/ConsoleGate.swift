import Domain
import Foundation
import HTTPCore
import HTTPRouting
import UseCases

/// What every console route does around its use case: finds the operator's session from the
/// `tollgate_console` cookie (HttpOnly, SameSite=Strict, Path=/console, Secure on https), sends
/// anyone without one to the sign-in page, checks each form's CSRF token (bound to the session,
/// to the sign-in page's visitor cookie, or to the invitation), and names the client address
/// the audit log records.
struct ConsoleGate: Sendable {
    static let cookie = "tollgate_console"
    static let visitor = "tollgate_console_visitor"

    let signIn: ConsoleSignIn
    let forms: FormTokens
    let clientAddress: ClientAddressResolver
    let secure: Bool
    let now: @Sendable () -> Date

    /// The operator signed in with this request's cookie, or nil.
    func session(_ request: HTTPRequest) async throws -> ConsoleSignIn.Session? {
        try await signIn.session(WebCookies.value(Self.cookie, in: request), now: now())
    }

    /// Runs `body` for the signed-in operator; without a session, `303` to the sign-in page.
    func signedIn(
        _ request: HTTPRequest, _ body: (ConsoleSignIn.Session) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        guard let session = try await session(request) else { return .redirect(to: "/console/sign-in", status: .seeOther) }
        var response = try await body(session)
        response.headers.set("Cache-Control", "no-store")
        return response
    }

    /// The audit actor for `session` on this request.
    func actor(_ session: ConsoleSignIn.Session, _ request: HTTPRequest, _ context: RequestContext) -> AuditActor {
        session.actor(clientAddress: clientAddress.address(for: request, context: context))
    }

    /// The session's form token.
    func formToken(_ session: ConsoleSignIn.Session) throws -> String { try forms.token(for: .console(session.sessionID)) }

    /// The posted fields once their CSRF token is the session's.
    /// - Throws: `APIError.forbidden` (403, nothing done) for a missing or foreign token.
    func form(_ request: HTTPRequest, _ session: ConsoleSignIn.Session) throws -> [String: String] {
        let fields = WebSessionGate.fields(request)
        guard forms.isValid(fields["csrf"], for: .console(session.sessionID)) else { throw WebSessionGate.staleForm }
        return fields
    }

    /// The sign-in page's visitor value: the request's cookie, or a new one to set.
    func visitor(_ request: HTTPRequest) throws -> (value: String, isNew: Bool) {
        if let value = WebCookies.value(Self.visitor, in: request) { return (value, false) }
        return (try OpaqueToken.generate(), true)
    }

    /// The sign-in form's fields once its CSRF token matches the visitor cookie.
    /// - Throws: `APIError.forbidden` when it does not.
    func visitorForm(_ request: HTTPRequest) throws -> [String: String] {
        let fields = WebSessionGate.fields(request)
        guard let visitor = WebCookies.value(Self.visitor, in: request), forms.isValid(fields["csrf"], for: .consoleVisitor(visitor)) else {
            throw WebSessionGate.staleForm
        }
        return fields
    }

    /// `response` with the visitor cookie set when it is new.
    func withVisitor(_ response: HTTPResponse, _ visitor: (value: String, isNew: Bool)) -> HTTPResponse {
        guard visitor.isNew else { return response }
        var response = response
        response.headers.add("Set-Cookie", setCookie(Self.visitor, visitor.value, maxAge: 3600))
        return response
    }

    /// `response` that signs the browser in.
    func signingIn(_ response: HTTPResponse, cookieValue: String) -> HTTPResponse {
        var response = response
        response.headers.add("Set-Cookie", setCookie(Self.cookie, cookieValue, maxAge: Int(ConsoleSignIn.absoluteLifetime)))
        response.headers.set("Cache-Control", "no-store")
        return response
    }

    /// `response` that removes the session cookie.
    func signingOut(_ response: HTTPResponse) -> HTTPResponse {
        var response = response
        response.headers.add("Set-Cookie", setCookie(Self.cookie, "", maxAge: 0))
        return response
    }

    /// `Set-Cookie` for a console cookie: only ever sent to `/console`, never from another site.
    func setCookie(_ name: String, _ value: String, maxAge: Int) -> String {
        var text = "\(name)=\(value); Path=/console; Max-Age=\(maxAge); HttpOnly; SameSite=Strict"
        if secure { text += "; Secure" }
        return text
    }
}
