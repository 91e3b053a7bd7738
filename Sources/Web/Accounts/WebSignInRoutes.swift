import Domain
import Foundation
import HTTPCore
import HTTPRouting
import Templating
import UseCases

/// Signing a buyer in on the web (`WebSignIn`): `GET /account/sign-in` (the email form, and the
/// password form for accounts that have one), `POST /account/sign-in` (mails a one-time link, the
/// same answer whether or not the email is known; or signs in with the password),
/// `GET /account/sign-in/link?token=` (a button: mail scanners' GETs sign no one in),
/// `POST /account/sign-in/link` (sets the cookie), `POST /account/sign-in/code` (the 6-digit code
/// from the same mail, typed where the buyer is: inside an app's web view the link would open
/// another browser), `POST /account/sign-out`, and `GET /manage`
/// (the link emails carry). Every form carries a CSRF token; sign-in is limited per client and,
/// for passwords, per email.
struct WebSignInRoutes {
    let signIn: WebSignIn
    let gate: WebSessionGate
    let pages: Pages
    let now: @Sendable () -> Date

    /// Where a sign-in may lead back to (`next`), so the field cannot send anyone elsewhere.
    static let destinations = ["/account", "/gonative/store"]

    func add(to group: inout RouteGroup, _ middleware: RouteMiddleware) {
        group.add(.get, "/manage") { [gate, pages] request, _ in
            // The mail's language goes on to the page it leads to.
            let locale = request.queryParameter(Links.localeParameter) ?? request.queryParameter("lang")
            let target = try await gate.session(request) == nil ? "/account/sign-in" : "/account"
            return .redirect(to: locale.flatMap(pages.buyerLanguage.match).map { target + "?locale=" + $0 } ?? target, status: .seeOther)
        }
        group.add(.get, "/account/sign-in") { [self] request, _ in
            if try await gate.session(request) != nil { return .redirect(to: Self.destination(request.queryParameter("next")), status: .seeOther) }
            return try form(request, next: request.queryParameter("next"))
        }
        group.add(.post, "/account/sign-in", maxBodyBytes: 8192, [middleware.limit(.webSignIn)]) { [self] request, context in
            let fields = try gate.visitorForm(request)
            let next = Self.destination(fields["next"])
            guard let email = try? EmailAddress.require(fields["email"] ?? "") else {
                return try form(
                    request, next: next, email: fields["email"], error: pages.text(.errorEmailBoughtWith, language: pages.language(for: request)),
                    status: .badRequest)
            }
            guard let password = fields["password"], !password.isEmpty else {
                try await signIn.requestLink(email: email, now: now())
                return try linkSent(request, email: email, next: next)
            }
            return try await passwordSignIn(
                request, email: email, password: password, next: next, client: middleware.client(request, context),
                logins: middleware.throttle(.webLogin))
        }
        group.add(.get, "/account/sign-in/link") { [self] request, _ in
            let token = request.queryParameter("token") ?? ""
            if let rejection = try await signIn.checkLink(token, now: now()) {
                return try expired(token: token, rejection, language: pages.language(for: request))
            }
            let visitor = try gate.visitor(request)
            let page = try pages.render(
                "account_sign_in_link", title: .titleSignIn, language: pages.language(for: request),
                [
                    "token": .string(token), "csrf": .string(try gate.forms.token(for: .visitor(visitor.value)))
                ])
            return gate.withVisitor(page, visitor)
        }
        group.add(.post, "/account/sign-in/link", maxBodyBytes: 4096) { [self] request, _ in
            let fields = try gate.visitorForm(request)
            let token = fields["token"] ?? ""
            switch try await signIn.signIn(link: token, now: now()) {
            case .valid(let issued): return gate.signingIn(.redirect(to: "/account", status: .seeOther), issued)
            case .rejected(let rejection): return try expired(token: token, rejection, language: pages.language(for: request))
            }
        }
        group.add(.post, "/account/sign-in/code", maxBodyBytes: 4096, [middleware.limit(.webSignInCode)]) { [self] request, _ in
            let fields = try gate.visitorForm(request)
            let next = Self.destination(fields["next"])
            guard let email = try? EmailAddress.require(fields["email"] ?? "") else {
                return try form(
                    request, next: next, error: pages.text(.errorEmailBoughtWith, language: pages.language(for: request)), status: .badRequest)
            }
            switch try await signIn.signIn(email: email, code: fields["code"] ?? "", now: now()) {
            case .signedIn(let issued):
                return gate.signingIn(.redirect(to: next, status: .seeOther), issued)
            case .wrong(let remaining):
                return try linkSent(
                    request, email: email, next: next, status: .unauthorized,
                    codeError: pages.text(.errorCodeWrong, language: pages.language(for: request), ["remaining": String(remaining)], count: remaining)
                )
            case .noLiveCode:
                return try form(
                    request, next: next, email: email,
                    error: pages.text(.errorCodeDead, language: pages.language(for: request)),
                    status: .unauthorized)
            }
        }
        group.add(.post, "/account/sign-out", maxBodyBytes: 4096) { [self] request, _ in
            if let session = try await gate.session(request) {
                _ = try gate.form(request, session: session)
                try await signIn.signOut(session, now: now())
            }
            return gate.signingOut(.redirect(to: "/account/sign-in?signed_out=1", status: .seeOther))
        }
    }

    private func passwordSignIn(
        _ request: HTTPRequest, email: String, password: String, next: String, client: String, logins: Throttle
    ) async throws -> HTTPResponse {
        let now = self.now()
        let keys = [client, email]
        try logins.check(keys, now: now)
        // Every attempt counts (no oracle: an account without a password answers as a wrong one).
        logins.record(keys, now: now)
        switch try await signIn.signIn(email: email, password: password, now: now) {
        case .signedIn(let issued):
            return gate.signingIn(.redirect(to: next, status: .seeOther), issued)
        case .refused:
            return try form(
                request, next: next, email: email, error: pages.text(.errorPasswordWrong, language: pages.language(for: request)),
                status: .unauthorized)
        }
    }

    /// "Check your email", with the form for the mailed code bound to the visitor cookie.
    private func linkSent(
        _ request: HTTPRequest, email: String, next: String, status: HTTPStatus = .ok, codeError: String? = nil
    ) throws -> HTTPResponse {
        let visitor = try gate.visitor(request)
        var values: [String: TemplateValue] = [
            "masked_email": .string(EmailMask.mask(email)), "email": .string(email), "next": .string(next),
            "csrf": .string(try gate.forms.token(for: .visitor(visitor.value)))
        ]
        if let codeError { values["code_error"] = .string(codeError) }
        return gate.withVisitor(
            try pages.render("account_link_sent", title: .titleCheckEmail, language: pages.language(for: request), status: status, values), visitor)
    }

    /// The sign-in page, bound to the visitor cookie (set here when the browser has none).
    private func form(
        _ request: HTTPRequest, next: String?, email: String? = nil, error: String? = nil, status: HTTPStatus = .ok
    ) throws -> HTTPResponse {
        let visitor = try gate.visitor(request)
        var values: [String: TemplateValue] = [
            "csrf": .string(try gate.forms.token(for: .visitor(visitor.value))), "next": .string(Self.destination(next)),
            "email": .string(email ?? ""), "signed_out": .bool(request.queryParameter("signed_out") != nil)
        ]
        if let error { values["error"] = .string(error) }
        return gate.withVisitor(
            try pages.render("account_sign_in", title: .titleSignIn, language: pages.language(for: request), status: status, values), visitor)
    }

    private func expired(token: String, _ rejection: WebSignIn.LinkRejection, language: String) throws -> HTTPResponse {
        try pages.render(
            "link_expired", title: token.isEmpty ? .titleLinkIncomplete : .titleSignInLinkDead, language: language,
            status: token.isEmpty ? .badRequest : HTTPStatus(code: 410),
            [
                "heading": .string(pages.text(.titleSignInLinkDead, language: language)),
                "advice": .string(pages.text(rejection == .used ? .adviceUsed : .adviceExpired, language: language)),
                "retry_url": "/account/sign-in", "retry_label": .string(pages.text(.retrySignIn, language: language))
            ])
    }

    /// `next` when it is one of `destinations`, else `/account`.
    static func destination(_ next: String?) -> String {
        guard let next, destinations.contains(next) else { return "/account" }
        return next
    }
}
