import Crypto
import Domain
import Foundation
import HTTPServer
import Storage

/// Signing in: `GET /auth/login?token=` (the one-time `login_url`) hands the app an
/// authorization code through its callback; `POST /auth/token` exchanges codes (optionally
/// PKCE S256) and rotates refresh tokens (a reused refresh token revokes its family);
/// `POST /api/v1/auth/login` signs in with email and password.
struct SignInRoutes {
    let services: AppServices
    let auth: AppAuthentication

    static let passwordFailureLimit = 10
    static let passwordFailureWindow: TimeInterval = 900

    struct PasswordLogin: Decodable {
        let email: String
        let password: String
    }

    func register(on router: inout Router) {
        router.add(.get, "/auth/login") { [services] request, _ in
            let token = request.queryParameter("token") ?? ""
            let challenge = request.queryParameter("code_challenge")
            if let method = request.queryParameter("code_challenge_method"), method != "S256" {
                throw APIError.badRequest("Only code_challenge_method=S256 is supported.")
            }
            if let challenge, !(43...128).contains(challenge.count) || (try? Base64URL.decode(challenge)) == nil {
                throw APIError.badRequest("code_challenge must be the base64url SHA-256 of the code verifier.")
            }
            let now = services.now()
            let code = try await services.database.write { connection -> String? in
                guard case .success(let login) = try AuthTokenRepository.consume(token, purpose: .login, on: connection, now: now) else {
                    return nil
                }
                return try AuthTokenRepository.issue(.authorizationCode, accountID: login.accountID, codeChallenge: challenge, on: connection, now: now)
            }
            guard let code else {
                return try services.pages.render("link_expired", title: "This sign-in link has expired", status: HTTPStatus(code: 410), [
                    "what": "sign-in link", "advice": "Open the app and sign in again: it will give you a fresh link.",
                ])
            }
            let scheme = services.config.app.scheme.isEmpty ? "tollgate" : services.config.app.scheme
            return .redirect(to: "\(scheme)://auth/callback?code=\(FormURLEncoding.encode(code))")
        }
        router.add(.post, "/auth/token", maxBodyBytes: 8192) { [services] request, _ in
            let form = try Self.form(request)
            let now = services.now()
            switch form["grant_type"] {
            case "authorization_code":
                guard let code = form["code"], !code.isEmpty else { throw APIError.badRequest("Send the authorization code as code.") }
                let verifier = form["code_verifier"]
                let tokens = try await services.database.write { connection -> SessionRepository.Tokens in
                    switch try AuthTokenRepository.consume(code, purpose: .authorizationCode, on: connection, now: now) {
                    case .failure:
                        throw TokenResponse.invalidGrant("The authorization code is unknown, expired or already used.")
                    case .success(let grant):
                        if let challenge = grant.codeChallenge {
                            guard let verifier, let digest = try? SHA256.hash(Array(verifier.utf8)),
                                ConstantTime.equals(Array(Base64URL.encode(digest).utf8), Array(challenge.utf8))
                            else {
                                throw TokenResponse.invalidGrant("The code_verifier does not match the code_challenge.")
                            }
                        }
                        return try SessionRepository.issue(accountID: grant.accountID, deviceID: nil, on: connection, now: now)
                    }
                }
                return TokenResponse.json(tokens)
            case "refresh_token":
                guard let refresh = form["refresh_token"], !refresh.isEmpty else { throw APIError.badRequest("Send refresh_token.") }
                let result = try await services.database.write { try SessionRepository.refresh(refresh, on: $0, now: now) }
                switch result {
                case .success(let tokens): return TokenResponse.json(tokens)
                case .failure(.reused):
                    services.logger.warning("refresh_token_reused")
                    throw TokenResponse.invalidGrant("This refresh token was already used; every session of its sign-in was ended. Sign in again.")
                case .failure(.invalid):
                    throw TokenResponse.invalidGrant("The refresh token is unknown, expired or revoked. Sign in again.")
                }
            default:
                throw APIError.badRequest("grant_type must be authorization_code or refresh_token.")
            }
        }
        router.add(.post, "/api/v1/auth/login", maxBodyBytes: 8192) { [services, auth] request, context in
            try auth.apiKeys.verify(request)
            let body = try request.decodeJSON(PasswordLogin.self)
            let email = body.email.trimmingCharacters(in: .whitespaces).lowercased()
            let client = services.clientAddress.address(for: request, context: context)
            let now = services.now()
            for key in ["login:\(client)", "login:\(email)"] {
                if let wait = services.rateLimiter.retryAfter(key, limit: Self.passwordFailureLimit, now: now) {
                    throw APIError.rateLimited(retryAfterSeconds: wait)
                }
            }
            let account = try await services.database.read { try AccountRepository.find(email: email, on: $0) }
            guard let account else {
                Self.fail(services, client: client, email: email, now: now)
                throw APIError.unauthorized("The email or the password is wrong.")
            }
            let stored = try await services.database.read { try AccountRepository.passwordHash(accountID: account.id, on: $0) }
            guard let stored else {
                // No password yet (an account made from a purchase): mail a link to set one.
                let queued = try await services.database.write { connection -> Bool in
                    guard try ResendThrottle.claim("set-password:\(account.id)", interval: 600, on: connection, now: now) else { return false }
                    try AuthMail(services: services).queueSetPassword(accountID: account.id, email: email, on: connection)
                    return true
                }
                if queued { services.mailQueued() }
                return .json { $0.string("status", "password_reset_required") }
            }
            let valid = await PasswordWork.verify(body.password, against: stored)
            guard valid else {
                Self.fail(services, client: client, email: email, now: now)
                throw APIError.unauthorized("The email or the password is wrong.")
            }
            let tokens = try await services.database.write { try SessionRepository.issue(accountID: account.id, deviceID: nil, on: $0, now: now) }
            return TokenResponse.json(tokens)
        }
    }

    static func fail(_ services: AppServices, client: String, email: String, now: Date) {
        services.rateLimiter.record("login:\(client)", window: passwordFailureWindow, now: now)
        services.rateLimiter.record("login:\(email)", window: passwordFailureWindow, now: now)
    }

    /// `application/x-www-form-urlencoded` (OAuth's format) or a JSON object of strings.
    static func form(_ request: HTTPRequest) throws -> [String: String] {
        let type = (request.headers["Content-Type"] ?? "").lowercased()
        if type.hasPrefix("application/json") {
            guard let object = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any] else {
                throw APIError.badRequest("The body is not a JSON object.")
            }
            return object.compactMapValues { $0 as? String }
        }
        guard type.isEmpty || type.hasPrefix("application/x-www-form-urlencoded") else {
            throw APIError.unsupportedMediaType("Send application/x-www-form-urlencoded or JSON.")
        }
        return Dictionary(FormURLEncoding.decode(String(decoding: request.body, as: UTF8.self)).map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
    }
}
