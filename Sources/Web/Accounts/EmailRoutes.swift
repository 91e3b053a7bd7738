import Domain
import Foundation
import HTTPCore
import HTTPRouting
import Templating
import UseCases

/// Email addresses: `POST /api/v1/account/email` records an address request and mails a link
/// (limited per client here, per address by `AuthMail`); `GET /email/confirm?token=` shows a
/// button (a mail scanner's GET confirms nothing), with a password field when the account has
/// none; `POST /email/confirm` confirms; an expired or used link gets a page that sends a new one.
struct EmailRoutes {
    let setEmail: SetAccountEmail
    let confirm: ConfirmEmail
    let pages: Pages
    let links: Links
    let now: @Sendable () -> Date

    struct SetEmail: Decodable {
        let email: String
    }

    func addAPI(to group: inout RouteGroup, _ middleware: RouteMiddleware) {
        group.add(
            .post, "/api/v1/account/email", maxBodyBytes: 4096,
            [middleware.limit(.accountEmail), BearerTokenMiddleware()]
        ) { [setEmail, now] request, context in
            guard let bearer = context.bearerToken else {
                throw APIError.unauthorized("Sign in first: send Authorization: Bearer <access_token>.")
            }
            let email = try EmailAddress.require(try request.decodeJSON(SetEmail.self, context).email)
            let requested = try await setEmail.set(email, bearer: bearer, now: now())
            return .json { json in
                json.string("email", requested.account.email)
                json.bool("email_verified", requested.account.emailVerified)
                json.bool("email_confirmation_required", requested.confirmationRequired)
            }
        }
    }

    func addPages(to group: inout RouteGroup, _ middleware: RouteMiddleware) {
        group.add(.get, "/email/confirm") { [self] request, _ in
            let token = request.queryParameter("token") ?? ""
            switch try await confirm.peek(token, now: now()) {
            case .valid(let pending):
                return try confirmPage(token: token, pending: pending, language: pages.language(for: request))
            case .rejected(let rejection):
                return try expired(token: token, rejection: rejection, language: pages.language(for: request))
            }
        }
        group.add(.post, "/email/confirm", maxBodyBytes: 4096) { [self] request, _ in
            let token = Self.formValue(request, "token")
            let password = Self.formValue(request, "password")
            if !password.isEmpty, !(SetPassword.minimumLength...SetPassword.maximumLength).contains(password.count),
                case .valid(let pending) = try await confirm.peek(token, now: now())
            {
                let language = pages.language(for: request)
                return try confirmPage(
                    token: token, pending: pending, language: language, status: .unprocessableContent,
                    error: pages.text(
                        .errorPasswordShort, language: language, ["min_length": String(SetPassword.minimumLength)], count: SetPassword.minimumLength))
            }
            switch try await confirm.confirm(token, password: password.isEmpty ? nil : password, now: now()) {
            case .confirmed(let email):
                var values: [String: TemplateValue] = ["email": .string(email)]
                if let link = links.app("account/email-confirmed") { values["app_link"] = .string(link) }
                return try pages.render("email_confirmed", language: pages.language(for: request), values)
            case .takenByAnotherAccount:
                return try pages.render("email_taken", title: .titleEmailTaken, language: pages.language(for: request), status: .conflict)
            case .rejected(let rejection):
                return try expired(token: token, rejection: rejection, language: pages.language(for: request))
            }
        }
        group.add(.post, "/email/confirm/resend", maxBodyBytes: 4096, [middleware.limit(.confirmResend)]) { [self] request, _ in
            let token = Self.formValue(request, "token")
            guard !token.isEmpty else {
                throw APIError.badRequest("This form was sent without the link it is for. Open the link from the email again.")
                    .onPage(.errorEmailLinkIncomplete)
            }
            let sent = try await confirm.resend(forExpired: token, now: now())
            return try pages.render(
                "link_resent", title: .titleCheckEmail, language: pages.language(for: request),
                ["masked_email": .string(sent.map(EmailMask.mask) ?? "")])
        }
    }

    /// The confirm button, and a password field (optional) when the account has no password.
    private func confirmPage(
        token: String, pending: ConfirmEmail.Pending, language: String, status: HTTPStatus = .ok, error: String? = nil
    ) throws -> HTTPResponse {
        var values: [String: TemplateValue] = [
            "token": .string(token), "masked_email": .string(EmailMask.mask(pending.email)), "action": "/email/confirm"
        ]
        if pending.offersPassword {
            values["offers_password"] = true
            values["min_length"] = .int(SetPassword.minimumLength)
        }
        if let error { values["error"] = .string(error) }
        return try pages.render("email_confirm", title: .titleConfirmEmail, language: language, status: status, values)
    }

    /// 410 for a used or expired link; 400 when the link carries no token at all (cut short).
    private func expired(token: String, rejection: LinkRejection, language: String) throws -> HTTPResponse {
        let incomplete = token.isEmpty
        return try pages.render(
            "link_expired", title: incomplete ? .titleLinkIncomplete : .titleLinkDead, language: language,
            status: incomplete ? .badRequest : HTTPStatus(code: 410),
            [
                "heading": .string(pages.text(.linkConfirmation, language: language)),
                "advice": .string(
                    pages.text(
                        incomplete ? .adviceConfirmIncomplete : rejection == .used ? .adviceUsed : .adviceExpired, language: language)),
                "resend_action": rejection == .unknown ? nil : "/email/confirm/resend",
                "token": .string(token)
            ])
    }

    static func formValue(_ request: HTTPRequest, _ name: String) -> String {
        FormURLEncoding.decode(String(decoding: request.body, as: UTF8.self)).first { $0.name == name }?.value ?? ""
    }
}
