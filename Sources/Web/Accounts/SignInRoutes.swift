import Crypto
import Foundation
import HTTPCore
import HTTPRouting
import JSON
import UseCases

/// Signing in (`SignIn`): `GET /auth/login?token=` (the one-time `login_url`) hands the app an
/// authorization code through its callback; `POST /auth/token` exchanges codes (optionally
/// PKCE S256) and rotates refresh tokens; `POST /api/v1/auth/login` signs in with email and
/// password, limited per client and per email (every attempt counts; one `401` for every
/// refusal); `POST /api/v1/auth/email` mails a sign-in link and code (`grant_type=email_code`).
struct SignInRoutes {
    let signIn: SignIn
    let pages: Pages
    let links: Links
    let now: @Sendable () -> Date

    struct PasswordLogin: Decodable {
        let email: String
        let password: String
    }

    func addPages(to group: inout RouteGroup) {
        group.add(.get, "/auth/login") { [self] request, _ in
            let challenge = request.queryParameter("code_challenge")
            if let method = request.queryParameter("code_challenge_method"), method != "S256" {
                throw APIError.badRequest("Only code_challenge_method=S256 is supported.")
            }
            // S256: the base64url (no padding) of a 32-byte SHA-256, so exactly 43 characters.
            if let challenge, challenge.count != 43 || (try? Base64URL.decode(challenge))?.count != 32 {
                throw APIError.badRequest("code_challenge must be the base64url SHA-256 of the code verifier.")
            }
            guard let token = request.queryParameter("token"), !token.isEmpty else {
                throw APIError.badRequest("This sign-in link is incomplete: open it again from the app.").onPage(.errorAppLinkIncomplete)
            }
            guard let code = try await signIn.authorizationCode(forLoginLink: token, codeChallenge: challenge, now: now())
            else {
                return try pages.render(
                    "link_expired", title: .titleSignInLinkExpired, language: pages.language(for: request), status: HTTPStatus(code: 410),
                    [
                        "heading": .string(pages.text(.titleSignInLinkDead, language: pages.language(for: request))),
                        "advice": .string(pages.text(.adviceAppSignIn, language: pages.language(for: request)))
                    ])
            }
            let callback = links.app("auth/callback") ?? "tollgate://auth/callback"
            return .redirect(to: "\(callback)?code=\(FormURLEncoding.encode(code))")
        }
        group.add(.post, "/auth/token", maxBodyBytes: 8192) { [signIn, now] request, context in
            let form = try Self.form(request, jsonBody: context.jsonBody)
            switch form["grant_type"] {
            case "authorization_code":
                guard let code = form["code"], !code.isEmpty else { throw APIError.badRequest("Send the authorization code as code.") }
                return TokenResponse.json(try await signIn.exchange(code: code, verifier: form["code_verifier"], now: now()))
            case "refresh_token":
                guard let refresh = form["refresh_token"], !refresh.isEmpty else { throw APIError.badRequest("Send refresh_token.") }
                return TokenResponse.json(try await signIn.refresh(refresh, now: now()))
            case "email_code":
                let email = try EmailAddress.require(form["email"] ?? "")
                guard let code = form["code"], !code.isEmpty else { throw APIError.badRequest("Send the mailed 6-digit code as code.") }
                return TokenResponse.json(try await signIn.byMail.exchange(email: email, code: code, now: now()))
            default:
                throw APIError.badRequest("grant_type must be authorization_code, email_code or refresh_token.")
            }
        }
    }

    func addAPI(to group: inout RouteGroup, _ middleware: RouteMiddleware) {
        let logins = middleware.throttle(.login)
        group.add(.post, "/api/v1/auth/login", maxBodyBytes: 8192) { [self] request, context in
            let body = try request.decodeJSON(PasswordLogin.self, context)
            let email = body.email.trimmingCharacters(in: .whitespaces).lowercased()
            let now = self.now()
            let keys = [middleware.client(request, context), email]
            try logins.check(keys, now: now)
            // Every attempt counts, whatever its outcome (no oracle, finding 4).
            logins.record(keys, now: now)
            switch try await signIn.password(email: email, password: body.password, now: now) {
            case .signedIn(let tokens):
                return TokenResponse.json(tokens)
            case .refused:
                throw APIError.unauthorized("The email or the password is wrong.")
            }
        }
        group.add(
            .post, "/api/v1/auth/email", maxBodyBytes: 4096,
            [middleware.limit(.authEmail)]
        ) { [signIn, now] request, context in
            let body = try request.decodeJSON(MailRequest.self, context)
            let email = try EmailAddress.require(body.email)
            if let challenge = body.codeChallenge, challenge.count != 43 || (try? Base64URL.decode(challenge))?.count != 32 {
                throw APIError.badRequest("code_challenge must be the base64url SHA-256 of the code verifier (S256).")
            }
            try await signIn.byMail.request(email: email, codeChallenge: body.codeChallenge, now: now())
            return .json(status: .accepted) { $0.string("status", "sent_if_known") }
        }
    }

    /// `{"email", "code_challenge"?}` (the decoder maps snake case).
    struct MailRequest: Decodable {
        let email: String
        let codeChallenge: String?
    }

    /// `application/x-www-form-urlencoded` (OAuth's format) or a JSON object of strings
    /// (`jsonBody`, as the strict check read it; members of other kinds are left out).
    static func form(_ request: HTTPRequest, jsonBody: JSONValue?) throws -> [String: String] {
        let type = (request.headers["Content-Type"] ?? "").lowercased()
        if type.hasPrefix("application/json") {
            guard !request.body.isEmpty, case .object(let members) = try jsonBody ?? request.strictJSONBody() else {
                throw APIError.badRequest("The body is not a JSON object.")
            }
            return Dictionary(
                members.compactMap { member in member.value.stringValue.map { (member.key, $0) } }, uniquingKeysWith: { first, _ in first })
        }
        guard type.isEmpty || type.hasPrefix("application/x-www-form-urlencoded") else {
            throw APIError.unsupportedMediaType("Send application/x-www-form-urlencoded or JSON.")
        }
        return Dictionary(
            FormURLEncoding.decode(String(decoding: request.body, as: UTF8.self)).map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first }
        )
    }
}
