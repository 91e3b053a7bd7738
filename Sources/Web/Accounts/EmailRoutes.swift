import Domain
import Foundation
import HTTPServer
import Templating

/// Email addresses: `POST /api/v1/account/email` sets one (unconfirmed) and mails a link;
/// `GET /email/confirm?token=` shows a button (a mail scanner's GET confirms nothing);
/// `POST /email/confirm` confirms; an expired or used link gets a page that sends a new one.
struct EmailRoutes {
    let services: AppServices
    let auth: AppAuthentication

    struct SetEmail: Decodable {
        let email: String
    }

    func register(on router: inout Router) {
        router.add(.post, "/api/v1/account/email", maxBodyBytes: 4096) { [services, auth] request, _ in
            try auth.apiKeys.verify(request)
            guard let bearer = try AppAuthentication.bearerToken(request) else {
                throw APIError.unauthorized("Sign in first: send Authorization: Bearer <access_token>.")
            }
            let email = try EmailAddress.require(try request.decodeJSON(SetEmail.self).email)
            let now = services.now()
            let account = try await services.database.write { connection -> Account in
                guard let accountID = try AppAuthentication.account(for: bearer, on: connection, now: now) else {
                    throw APIError.unauthorized("Sign in first.")
                }
                let current = try AccountRepository.require(id: accountID, on: connection)
                if current.email == email && current.emailVerified { return current }
                try AccountRepository.setEmail(email, accountID: accountID, on: connection, now: now)
                try AuthMail(services: services).queueConfirmation(accountID: accountID, email: email, on: connection)
                return try AccountRepository.require(id: accountID, on: connection)
            }
            services.mailQueued()
            return .json { json in
                json.string("email", account.email)
                json.bool("email_verified", account.emailVerified)
                json.bool("email_confirmation_required", !account.emailVerified)
            }
        }
        router.add(.get, "/email/confirm") { [services] request, _ in
            let token = request.queryParameter("token") ?? ""
            let now = services.now()
            let state = try await services.database.read { try AuthTokenRepository.peek(token, purpose: .emailConfirmation, on: $0, now: now) }
            switch state {
            case .success(let stored):
                return try services.pages.render("email_confirm", title: "Confirm your email", [
                    "token": .string(token), "masked_email": .string(EmailMask.mask(stored.email ?? "")), "action": "/email/confirm",
                ])
            case .failure(let rejection):
                return try Self.expired(services, token: token, rejection: rejection)
            }
        }
        router.add(.post, "/email/confirm", maxBodyBytes: 4096) { [services] request, _ in
            let token = Self.formValue(request, "token")
            let now = services.now()
            enum Outcome { case confirmed(String), rejected(AuthTokenRepository.Rejection), taken }
            let outcome = try await services.database.write { connection -> Outcome in
                switch try AuthTokenRepository.consume(token, purpose: .emailConfirmation, on: connection, now: now) {
                case .failure(let rejection):
                    return .rejected(rejection)
                case .success(let stored):
                    guard let email = stored.email else { return .rejected(.unknown) }
                    do {
                        try AccountRepository.confirmEmail(email, accountID: stored.accountID, on: connection, now: now)
                    } catch AccountRepository.EmailConflict.confirmedElsewhere {
                        return .taken
                    }
                    return .confirmed(email)
                }
            }
            switch outcome {
            case .confirmed(let email):
                var values: [String: TemplateValue] = ["email": .string(email)]
                if !services.config.app.scheme.isEmpty { values["app_link"] = .string("\(services.config.app.scheme)://account/email-confirmed") }
                return try services.pages.render("email_confirmed", title: "Email confirmed", values)
            case .taken:
                return try services.pages.render("email_taken", title: "This email belongs to another account", status: .conflict)
            case .rejected(let rejection):
                return try Self.expired(services, token: token, rejection: rejection)
            }
        }
        router.add(.post, "/email/confirm/resend", maxBodyBytes: 4096) { [services] request, context in
            let token = Self.formValue(request, "token")
            let now = services.now()
            let client = services.clientAddress.address(for: request, context: context)
            if let wait = services.rateLimiter.retryAfter("confirm-resend:\(client)", limit: 5, now: now) {
                throw APIError.rateLimited(retryAfterSeconds: wait)
            }
            services.rateLimiter.record("confirm-resend:\(client)", window: 600, now: now)
            let sent = try await services.database.write { connection -> String? in
                guard let stored = try AuthTokenRepository.lookup(token, purpose: .emailConfirmation, on: connection),
                    let email = stored.email,
                    let account = try AccountRepository.find(id: stored.accountID, on: connection),
                    account.email == email, !account.emailVerified,
                    try ResendThrottle.claim("confirm:\(account.id)", interval: 60, on: connection, now: now)
                else { return nil }
                try AuthMail(services: services).queueConfirmation(accountID: account.id, email: email, on: connection)
                return email
            }
            if sent != nil { services.mailQueued() }
            return try services.pages.render("link_resent", title: "Check your email", [
                "masked_email": .string(sent.map(EmailMask.mask) ?? ""),
            ])
        }
    }

    static func expired(_ services: AppServices, token: String, rejection: AuthTokenRepository.Rejection) throws -> HTTPResponse {
        try services.pages.render("link_expired", title: "This link no longer works", status: HTTPStatus(code: 410), [
            "what": "confirmation link",
            "advice": .string(rejection == .used ? "It was already used." : "It has expired or is incomplete."),
            "resend_action": rejection == .unknown ? nil : "/email/confirm/resend",
            "token": .string(token),
        ])
    }

    static func formValue(_ request: HTTPRequest, _ name: String) -> String {
        FormURLEncoding.decode(String(decoding: request.body, as: UTF8.self)).first { $0.name == name }?.value ?? ""
    }
}
