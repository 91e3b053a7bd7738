import Crypto
import Domain
import Foundation
import HTTPServer
import Templating

/// `GET|POST /auth/password/reset?token=`: the page that sets a password from an emailed
/// link. Setting it signs the account out everywhere.
struct PasswordRoutes {
    let services: AppServices

    static let minimumLength = 10
    static let maximumLength = 200

    func register(on router: inout Router) {
        router.add(.get, "/auth/password/reset") { [services] request, _ in
            let token = request.queryParameter("token") ?? ""
            let now = services.now()
            switch try await services.database.read({ try AuthTokenRepository.peek(token, purpose: .passwordReset, on: $0, now: now) }) {
            case .success:
                return try Self.form(services, token: token, error: nil)
            case .failure(let rejection):
                return try Self.expired(services, rejection)
            }
        }
        router.add(.post, "/auth/password/reset", maxBodyBytes: 4096) { [services] request, _ in
            let form = Dictionary(
                FormURLEncoding.decode(String(decoding: request.body, as: UTF8.self)).map { ($0.name, $0.value) },
                uniquingKeysWith: { first, _ in first })
            let token = form["token"] ?? request.queryParameter("token") ?? ""
            let password = form["password"] ?? ""
            let now = services.now()
            if case .failure(let rejection) = try await services.database.read({ try AuthTokenRepository.peek(token, purpose: .passwordReset, on: $0, now: now) }) {
                return try Self.expired(services, rejection)
            }
            guard (Self.minimumLength...Self.maximumLength).contains(password.count) else {
                return try Self.form(services, token: token, error: "Choose a password of at least \(Self.minimumLength) characters.", status: .unprocessableContent)
            }
            if let confirmation = form["password_confirmation"], confirmation != password {
                return try Self.form(services, token: token, error: "The two passwords differ.", status: .unprocessableContent)
            }
            let hash = try await PasswordWork.hash(password)
            let result = try await services.database.write { connection -> Result<Void, AuthTokenRepository.Rejection> in
                switch try AuthTokenRepository.consume(token, purpose: .passwordReset, on: connection, now: now) {
                case .failure(let rejection):
                    return .failure(rejection)
                case .success(let stored):
                    try AccountRepository.setPasswordHash(hash, accountID: stored.accountID, on: connection, now: now)
                    try SessionRepository.revokeAll(accountID: stored.accountID, on: connection)
                    return .success(())
                }
            }
            if case .failure(let rejection) = result { return try Self.expired(services, rejection) }
            var values: [String: TemplateValue] = [:]
            if !services.config.app.scheme.isEmpty { values["app_link"] = .string("\(services.config.app.scheme)://auth/signed-out") }
            return try services.pages.render("set_password_done", title: "Password set", values)
        }
    }

    static func form(_ services: AppServices, token: String, error: String?, status: HTTPStatus = .ok) throws -> HTTPResponse {
        var values: [String: TemplateValue] = [
            "action": "/auth/password/reset", "token": .string(token), "min_length": .int(minimumLength),
        ]
        if let error { values["error"] = .string(error) }
        return try services.pages.render("set_password", title: "Set your password", status: status, values)
    }

    static func expired(_ services: AppServices, _ rejection: AuthTokenRepository.Rejection) throws -> HTTPResponse {
        try services.pages.render("link_expired", title: "This link no longer works", status: HTTPStatus(code: 410), [
            "what": "password link",
            "advice": .string((rejection == .used ? "It was already used. " : "It has expired or is incomplete. ")
                + "Sign in with your email in the app to get a new one."),
        ])
    }
}
