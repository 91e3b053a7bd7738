import Domain
import Foundation
import HTTPCore
import HTTPRouting
import QRCode
import Templating
import UseCases

/// `GET|POST /console/sign-in` (email, password, TOTP code; one 401 page for any wrong field;
/// 429 while locked out), `POST /console/sign-out` (ends the session server-side) and the
/// invitation, `GET|POST /console/invite/{token}` (password and authenticator; the QR code and
/// base32 secret are shown on this page only).
struct ConsoleSignInRoutes {
    let cases: ConsoleRoutes.UseCaseSet
    let gate: ConsoleGate
    let pages: Pages
    let now: @Sendable () -> Date

    func add(to group: inout RouteGroup) {
        group.add(.get, "/console") { _, _ in .redirect(to: "/console/", status: .seeOther) }
        group.add(.get, "/console/sign-in") { [self] request, _ in
            if try await gate.session(request) != nil { return .redirect(to: "/console/", status: .seeOther) }
            return try signInPage(
                request,
                values: [
                    "signed_out": .bool(request.queryParameter("signed_out") != nil), "enrolled": .bool(request.queryParameter("enrolled") != nil)
                ])
        }
        group.add(.post, "/console/sign-in", maxBodyBytes: 8192) { [self] request, context in
            let fields = try gate.visitorForm(request)
            let outcome = try await cases.signIn.signIn(
                email: fields["email"] ?? "", password: fields["password"] ?? "", otp: fields["otp"] ?? "",
                clientAddress: gate.clientAddress.address(for: request, context: context), now: now())
            switch outcome {
            case .signedIn(let cookieValue, _):
                return gate.signingIn(.redirect(to: "/console/", status: .seeOther), cookieValue: cookieValue)
            case .wrong:
                return try signInPage(request, values: ["wrong": true, "email": .string(fields["email"] ?? "")], status: .unauthorized)
            }
        }
        group.add(.post, "/console/sign-out", maxBodyBytes: 4096) { [self] request, _ in
            if let session = try await gate.session(request) {
                _ = try gate.form(request, session)
                try await cases.signIn.signOut(session, now: now())
            }
            return gate.signingOut(.redirect(to: "/console/sign-in?signed_out=1", status: .seeOther))
        }
        group.add(.get, "/console/invite/{token}") { [self] request, context in
            try await invitationPage(request, token: context.parameters["token"] ?? "")
        }
        group.add(.post, "/console/invite/{token}", maxBodyBytes: 8192) { [self] request, context in
            let token = context.parameters["token"] ?? ""
            let fields = WebSessionGate.fields(request)
            guard cases.formTokens.isValid(fields["csrf"], for: .invitation(token)) else { throw WebSessionGate.staleForm }
            switch try await cases.operators.enrol(token: token, password: fields["password"] ?? "", otp: fields["otp"] ?? "", now: now()) {
            case .enrolled: return .redirect(to: "/console/sign-in?enrolled=1", status: .seeOther)
            case .refused(let refusal): return try refusedPage(request, refusal)
            case .passwordTooShort: return try await invitationPage(request, token: token, error: "password_short", status: .badRequest)
            case .wrongCode: return try await invitationPage(request, token: token, error: "code_wrong", status: .badRequest)
            }
        }
    }

    private func signInPage(_ request: HTTPRequest, values: [String: TemplateValue], status: HTTPStatus = .ok) throws -> HTTPResponse {
        let visitor = try gate.visitor(request)
        var values = values
        values["csrf"] = .string(try cases.formTokens.token(for: .consoleVisitor(visitor.value)))
        var response = try pages.render("console_sign_in", language: pages.language(for: request), status: status, values)
        response.headers.set("Cache-Control", "no-store")
        return gate.withVisitor(response, visitor)
    }

    private func invitationPage(_ request: HTTPRequest, token: String, error: String? = nil, status: HTTPStatus = .ok) async throws -> HTTPResponse {
        switch try await cases.operators.invitation(token: token, now: now()) {
        case .refused(let refusal):
            return try refusedPage(request, refusal)
        case .open(let invitation):
            var values: [String: TemplateValue] = [
                "email": .string(invitation.email), "secret": .string(Self.grouped(invitation.secret)),
                "qr_svg": .string(try QRCode(encoding: invitation.provisioningURI).svg(label: "")),
                "csrf": .string(try cases.formTokens.token(for: .invitation(token))), "action": .string("/console/invite/" + token),
                "min_length": .int(ConsoleOperators.minimumPasswordLength)
            ]
            if let error { values[error] = true }
            var response = try pages.render("console_invite", language: pages.language(for: request), status: status, values)
            response.headers.set("Cache-Control", "no-store")
            response.headers.set("Referrer-Policy", "no-referrer")
            return response
        }
    }

    private func refusedPage(_ request: HTTPRequest, _ refusal: ConsoleOperators.InvitationRefusal) throws -> HTTPResponse {
        let key: String
        switch refusal {
        case .unknown: key = "unknown"
        case .used: key = "used"
        case .expired: key = "expired"
        }
        var values: [String: TemplateValue] = ["refused": true]
        values[key] = true
        return try pages.render(
            "console_invite", language: pages.language(for: request), status: refusal == .unknown ? .notFound : HTTPStatus(code: 410), values)
    }

    /// The base32 secret in groups of four, as authenticator apps show it.
    static func grouped(_ secret: String) -> String {
        stride(from: 0, to: secret.count, by: 4).map { start in
            let from = secret.index(secret.startIndex, offsetBy: start)
            return String(secret[from..<(secret.index(from, offsetBy: 4, limitedBy: secret.endIndex) ?? secret.endIndex)])
        }.joined(separator: " ")
    }
}
