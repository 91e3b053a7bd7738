import Crypto
import Domain
import HTTPServer
import QRCode
import Templating

/// `GET /redeem/{code}`: the emailed link. It tries to open the app with the code and shows
/// the fallbacks (install, type the code, a QR code on desktop). A GET never consumes or
/// changes a code — mail scanners prefetch links — it only looks the code up.
struct RedeemPageRoutes {
    let services: AppServices

    func register(on router: inout Router) {
        router.add(.get, "/redeem/{code}") { [services] request, context in
            let raw = context.parameters["code"] ?? ""
            guard let code = RedemptionCode(normalizing: raw) else {
                return try Self.unknown(services, status: .notFound)
            }
            let now = services.now()
            let record = try await services.database.read { try CodeRepository.find(code: code, vault: services.vault, on: $0) }
            guard let record, record.status != .revoked else {
                return try Self.unknown(services, status: .notFound)
            }
            if record.status == .replaced || (record.status == .live && record.isExpired(at: now)) {
                return try services.pages.render("redeem_expired", title: "This code has expired", [
                    "resend_action": "/redeem/resend",
                ])
            }
            let platform = ClientPlatform(userAgent: request.headers["User-Agent"])
            return try services.pages.render("redeem", title: "Open \(services.config.app.name)", AppLinks(services: services, code: code).values(for: platform, autoOpen: true))
        }
        router.add(.post, "/redeem/resend", maxBodyBytes: 4096) { [services] request, context in
            // The browser form behind the expired-code page: same rules as the API, no enumeration.
            let form = FormURLEncoding.decode(String(decoding: request.body, as: UTF8.self))
            guard let email = EmailAddress.normalized(form.first { $0.name == "email" }?.value ?? "") else {
                return try services.pages.render("redeem_expired", title: "This code has expired", status: .badRequest, [
                    "resend_action": "/redeem/resend", "error": "Enter the email address you paid with.",
                ])
            }
            let client = services.clientAddress.address(for: request, context: context)
            let now = services.now()
            if let wait = services.rateLimiter.retryAfter("resend:\(client)", limit: RedemptionAPIRoutes.resendLimit, now: now) {
                throw APIError.rateLimited(retryAfterSeconds: wait)
            }
            services.rateLimiter.record("resend:\(client)", window: RedemptionAPIRoutes.failureWindow, now: now)
            if try await CodeResend(services: services).resendAll(email: email, now: now) > 0 { services.mailQueued() }
            return try services.pages.render("redeem_resent", title: "Check your email", ["masked_email": .string(EmailMask.mask(email))])
        }
    }

    static func unknown(_ services: AppServices, status: HTTPStatus) throws -> HTTPResponse {
        try services.pages.render("redeem_expired", title: "We could not find this code", status: status, [
            "resend_action": "/redeem/resend", "unknown": true,
        ])
    }
}
