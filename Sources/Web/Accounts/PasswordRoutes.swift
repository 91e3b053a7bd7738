import Domain
import Foundation
import HTTPCore
import HTTPRouting
import Templating
import UseCases

/// `GET|POST /auth/password/reset?token=`: the page that sets a password from an emailed
/// link (`SetPassword`). Setting it signs the account out everywhere.
struct PasswordRoutes {
    let setPassword: SetPassword
    let pages: Pages
    let links: Links
    let now: @Sendable () -> Date

    func add(to group: inout RouteGroup) {
        group.add(.get, "/auth/password/reset") { [self] request, _ in
            let token = request.queryParameter("token") ?? ""
            if let rejection = try await setPassword.check(token, now: now()) {
                return try expired(rejection, token: token, language: pages.language(for: request))
            }
            return try form(token: token, error: nil, language: pages.language(for: request))
        }
        group.add(.post, "/auth/password/reset", maxBodyBytes: 4096) { [self] request, _ in
            let form = Dictionary(
                FormURLEncoding.decode(String(decoding: request.body, as: UTF8.self)).map { ($0.name, $0.value) },
                uniquingKeysWith: { first, _ in first })
            let token = form["token"] ?? request.queryParameter("token") ?? ""
            if token.isEmpty { return try expired(.unknown, token: token, language: pages.language(for: request)) }
            guard let password = form["password"] else {
                throw APIError.badRequest("The form was sent without its password field.")
            }
            if let rejection = try await setPassword.check(token, now: now()) {
                return try expired(rejection, token: token, language: pages.language(for: request))
            }
            guard (SetPassword.minimumLength...SetPassword.maximumLength).contains(password.count) else {
                return try self.form(
                    token: token,
                    error: pages.text(
                        .errorPasswordShort, language: pages.language(for: request), ["min_length": String(SetPassword.minimumLength)],
                        count: SetPassword.minimumLength), status: .unprocessableContent,
                    language: pages.language(for: request))
            }
            if let confirmation = form["password_confirmation"], confirmation != password {
                return try self.form(
                    token: token, error: pages.text(.errorPasswordsDiffer, language: pages.language(for: request)), status: .unprocessableContent,
                    language: pages.language(for: request))
            }
            if let rejection = try await setPassword.set(password, token: token, now: now()) {
                return try expired(rejection, token: token, language: pages.language(for: request))
            }
            var values: [String: TemplateValue] = [:]
            if let link = links.app("auth/signed-out") { values["app_link"] = .string(link) }
            return try pages.render("set_password_done", language: pages.language(for: request), values)
        }
    }

    private func form(token: String, error: String?, status: HTTPStatus = .ok, language: String) throws -> HTTPResponse {
        var values: [String: TemplateValue] = [
            "action": "/auth/password/reset", "token": .string(token), "min_length": .int(SetPassword.minimumLength)
        ]
        if let error { values["error"] = .string(error) }
        return try pages.render("set_password", language: language, status: status, values)
    }

    /// 410 for a used or expired link; 400 when the link carries no token at all (cut short).
    private func expired(_ rejection: LinkRejection, token: String, language: String) throws -> HTTPResponse {
        let incomplete = token.isEmpty
        return try pages.render(
            "link_expired", title: incomplete ? .titleLinkIncomplete : .titleLinkDead, language: language,
            status: incomplete ? .badRequest : HTTPStatus(code: 410),
            [
                "heading": .string(pages.text(.linkPassword, language: language)),
                "advice": .string(
                    pages.text(
                        incomplete ? .advicePasswordIncomplete : rejection == .used ? .advicePasswordUsed : .advicePasswordExpired,
                        language: language))
            ])
    }
}
