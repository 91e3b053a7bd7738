import Domain
import Foundation
import HTTPCore
import HTTPRouting
import Templating
import UseCases

/// The buyer's page and its forms, for a signed-in web session (`WebAccount`): `GET /account`,
/// `POST /account/resend` (fresh codes by email), `POST /account/billing` (`303` to Stripe's
/// customer portal), `GET /account/export` (the data export as a download) and
/// `POST /account/delete` (with the typed confirmation `DELETE`). Signed out, the page sends the
/// browser to the sign-in form and the forms answer `401`.
struct WebAccountRoutes {
    let account: WebAccount
    let delete: DeleteAccount
    let export: ExportAccount
    let gate: WebSessionGate
    let pages: Pages
    let products: ProductNames
    let now: @Sendable () -> Date

    /// Where "manage billing" may send the browser (the page's CSP `form-action`).
    static let billingOrigins = ["https://billing.stripe.com"]
    /// What the buyer types to confirm a deletion.
    static let deleteConfirmation = "DELETE"

    func add(to group: inout RouteGroup, _ middleware: RouteMiddleware) {
        group.add(.get, "/account") { [self] request, _ in
            guard let session = try await gate.session(request) else { return .redirect(to: "/account/sign-in", status: .seeOther) }
            return gate.refreshed(
                try await page(
                    session, notice: Self.notice(request.queryParameter("done")).map { pages.text($0, language: pages.language(for: request)) },
                    language: pages.language(for: request)), session, request: request)
        }
        group.add(.post, "/account/resend", maxBodyBytes: 4096, [middleware.limit(.accountResend)]) { [self] request, _ in
            let session = try await signedIn(request)
            _ = try gate.form(request, session: session)
            try await account.resendCodes(accountID: session.accountID, now: now())
            return .redirect(to: "/account?done=resent", status: .seeOther)
        }
        group.add(.post, "/account/billing", maxBodyBytes: 4096, [middleware.limit(.accountBilling)]) { [self] request, _ in
            let session = try await signedIn(request)
            _ = try gate.form(request, session: session)
            return .redirect(to: try await account.billingPortal(accountID: session.accountID, now: now()), status: .seeOther)
        }
        group.add(.get, "/account/export") { [export, now] request, _ in
            AccountDataRoutes.download(try await export.signedIn(.webSession(WebCookies.value(WebCookies.session, in: request)), now: now()))
        }
        group.add(.post, "/account/delete", maxBodyBytes: 4096) { [self] request, _ in
            let cookie = WebCookies.value(WebCookies.session, in: request)
            if let session = try await gate.session(request) {
                let fields = try gate.form(request, session: session)
                guard fields["confirm"]?.trimmingCharacters(in: .whitespaces) == Self.deleteConfirmation else {
                    return try await page(
                        session, language: pages.language(for: request),
                        error: pages.text(.errorDeleteWord, language: pages.language(for: request), ["delete_word": Self.deleteConfirmation]),
                        status: .badRequest)
                }
            }
            // Signed out already: a repeat with the same cookie finds the account it deleted, or is 401.
            _ = try await delete.signedIn(.webSession(cookie), now: now())
            let answer: HTTPResponse
            if request.headers["Accept"]?.contains("text/html") == true {
                answer = try pages.render("account_deleted", title: .titleAccountDeleted, language: pages.language(for: request))
            } else {
                answer = .json { $0.string("status", "deleted") }
            }
            return gate.signingOut(answer)
        }
    }

    private func signedIn(_ request: HTTPRequest) async throws -> WebSignIn.Session {
        guard let session = try await gate.session(request) else {
            throw APIError.unauthorized("Sign in first: your session has ended. Open /account/sign-in.").onPage(.errorSessionEnded)
        }
        return session
    }

    private func page(
        _ session: WebSignIn.Session, notice: String? = nil, language: String, error: String? = nil, status: HTTPStatus = .ok
    ) async throws -> HTTPResponse {
        let now = self.now()
        let overview = try await account.overview(accountID: session.accountID, now: now)
        var values: [String: TemplateValue] = [
            "csrf": .string(try gate.formToken(for: session)),
            "email": .string(overview.account.email ?? ""), "email_verified": .bool(overview.account.emailVerified),
            "purchases": .list(overview.purchases.map { purchase(in: $0, now: now, language: language) }),
            "entitlements": .list(
                overview.entitlements.map { entitlement in
                    .dictionary([
                        "name": .string(products.name(of: entitlement.id)), "active": .bool(entitlement.active),
                        "until": .string(entitlement.expiresAt.map { LocaleFormat.dateTime($0, language: language) } ?? "")
                    ])
                }),
            "has_billing": .bool(overview.hasBilling), "can_resend": .bool(overview.canResendCodes),
            "delete_word": .string(Self.deleteConfirmation)
        ]
        if let notice { values["notice"] = .string(notice) }
        if let error { values["error"] = .string(error) }
        var response = try pages.render("account", title: .titleAccount, language: language, status: status, values)
        response.headers.set("Content-Security-Policy", SecurityHeaders.contentSecurityPolicy(formActions: Self.billingOrigins))
        response.headers.set("Cache-Control", "no-store")
        return response
    }

    private func purchase(in purchase: Purchase, now: Date, language: String) -> TemplateValue {
        let source =
            switch purchase.platform {
            case .stripe: pages.text(.sourceWeb, language: language)
            case .appStore: "App Store"
            case .playStore: "Google Play"
            }
        let date = purchase.expiresAt.map { LocaleFormat.dateTime($0, language: language) }
        let when: String =
            switch (purchase.isEntitled(at: now), purchase.status, date) {
            case (_, _, nil): ""
            case (true, .canceled, let date?): pages.text(.purchaseEnds, language: language, ["date": date])
            case (true, _, let date?): pages.text(.purchaseRenews, language: language, ["date": date])
            case (false, _, let date?): pages.text(.purchaseEnded, language: language, ["date": date])
            }
        let name = products.name(of: purchase.productID)
        let plan = products.plan(of: purchase.productID, platform: purchase.platform)
        return .dictionary([
            // The plan beside what it unlocks, said once when they are the same words.
            "name": .string(name), "source": .string(source), "plan": .string(plan == name ? "" : plan),
            "status": .string(pages.text(PageText.status(purchase.status), language: language)),
            "active": .bool(purchase.isEntitled(at: now)), "when": .string(when)
        ])
    }

    static func notice(_ done: String?) -> PageText? {
        switch done {
        case "resent": .noticeResent
        default: nil
        }
    }
}
