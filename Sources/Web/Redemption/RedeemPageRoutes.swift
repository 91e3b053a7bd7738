import Foundation
import Domain
import HTTPCore
import HTTPRouting
import Templating
import UseCases

/// `GET /redeem/{code}`: the emailed link. It tries to open the app with the code and shows
/// the fallbacks (install, type the code, a QR code on desktop). A GET never consumes or
/// changes a code — mail scanners prefetch links — it only looks the code up.
struct RedeemPageRoutes {
    let lookUp: LookUpCode
    let resend: ResendCodes
    let pages: Pages
    let links: Links
    let app: AppIdentity
    let now: @Sendable () -> Date

    func add(to group: inout RouteGroup, _ middleware: RouteMiddleware) {
        group.add(.get, "/redeem/{code}") { [self] request, context in
            switch try await lookUp.state(of: context.parameters["code"] ?? "", now: now()) {
            case .unknown:
                return try pages.render(
                    "redeem_expired", language: pages.language(for: request), status: .notFound,
                    [
                        "resend_action": "/redeem/resend", "unknown": true
                    ])
            case .expired:
                return try pages.render("redeem_expired", language: pages.language(for: request), ["resend_action": "/redeem/resend"])
            case .usable(let code):
                let platform = ClientPlatform(userAgent: request.headers["User-Agent"])
                return try pages.render(
                    "redeem", language: pages.language(for: request),
                    AppLinks(links: links, app: app, code: code).values(for: platform, autoOpen: true, landing: true))
            case .redeemed(let code):
                var values = AppLinks(links: links, app: app, code: code).values(
                    for: ClientPlatform(userAgent: request.headers["User-Agent"]), landing: true)
                values["redeemed"] = true
                return try pages.render("redeem", language: pages.language(for: request), values)
            }
        }
        // The browser form behind the expired-code page: same rules as the API, no enumeration.
        let resendLimit = middleware.limit(.resend)
        group.add(.post, "/redeem/resend", maxBodyBytes: 4096, [resendLimit]) { [self] request, _ in
            let form = FormURLEncoding.decode(String(decoding: request.body, as: UTF8.self))
            let typed = form.first { $0.name == "email" }?.value ?? ""
            guard let email = EmailAddress.normalized(typed) else {
                // The same page again, with what the buyer typed and the heading of their case.
                let unknown = form.first { $0.name == "case" }?.value == "unknown"
                return try pages.render(
                    "redeem_expired", language: pages.language(for: request), status: .badRequest,
                    [
                        "resend_action": "/redeem/resend", "error": .string(pages.text(.errorEmailPaidWith, language: pages.language(for: request))),
                        "email": .string(typed),
                        "unknown": .bool(unknown)
                    ])
            }
            try await resend.resend(to: email, now: now())
            return try pages.render("redeem_resent", language: pages.language(for: request), ["masked_email": .string(EmailMask.mask(email))])
        }
    }
}
