import Domain
import Foundation
import HTTPCore
import HTTPRouting
import Templating
import UseCases

/// The browser side of web checkout: `/checkout/start` (to Stripe), `/checkout/success`
/// (the landing after payment: the code page or a redirect to the app's URL) and
/// `/checkout/cancel`.
struct CheckoutRoutes {
    let start: StartCheckout
    let complete: CompleteCheckout
    let pages: Pages
    let links: Links
    let products: ProductNames
    let app: AppIdentity
    let now: @Sendable () -> Date
    /// The browser's cookie session (a signed-in buyer's holdings count as the app user's).
    var gate: WebSessionGate? = nil

    func add(to group: inout RouteGroup) {
        for method in [HTTPMethod.get, .post] {
            group.add(method, "/checkout/start", maxBodyBytes: 32 * 1024) { [self] request, context in
                let input = try CheckoutStartRequest(request, jsonBody: context.jsonBody)
                var order = input.order
                // Chosen once, here: kept with the checkout and its purchase for every later page and mail.
                let language = pages.language(for: request, kept: input.locale)
                order.locale = language
                order.accountID = try await gate?.session(request)?.accountID
                do {
                    switch try await start.begin(order, now: now()) {
                    case .checkout(let url):
                        return .redirect(to: url, status: .seeOther)
                    case .alreadyEntitled(let refusal):
                        return try AlreadyEntitledResponse.response(refusal, request: request, pages: pages, language: language)
                    }
                } catch let error as UseCaseError where error.kind == .notConfigured || error.kind == .upstreamUnavailable {
                    // A calm page with a way back: no status code, and no configuration key on it
                    // unless the key is what must change (a plan's price Stripe does not know).
                    var values: [String: TemplateValue] = [:]
                    if error.code == StartCheckout.unknownPriceCode { values["operator_hint"] = .string(error.message) }
                    if request.method == .get { values["retry_url"] = .string(request.target) }
                    if let link = links.app("checkout/cancel") { values["app_link"] = .string(link) }
                    return try pages.render("checkout_unavailable", language: language, status: .serviceUnavailable, values)
                } catch let error as UseCaseError where error.kind == .conflict {
                    // The one conflict of a start: its checkout_context_id was used already.
                    throw APIError(error).onPage(.errorCheckoutStarted)
                }
            }
        }
        group.add(.get, "/checkout/success") { [self] request, _ in try await success(request) }
        group.add(.get, "/checkout/cancel") { [pages, links] request, _ in
            var values: [String: TemplateValue] = [:]
            if let link = links.app("checkout/cancel") { values["app_link"] = .string(link) }
            return try pages.render("checkout_cancel", language: pages.language(for: request), values)
        }
    }

    private func success(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let sessionID = request.queryParameter("session_id"), sessionID.hasPrefix("cs_"), (4...255).contains(sessionID.count),
            sessionID.utf8.allSatisfy({
                $0 == UInt8(ascii: "_") || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
            })
        else {
            throw APIError.badRequest("This link is missing its checkout session. Open the link from the payment page again.")
                .onPage(.errorCheckoutLinkIncomplete)
        }
        let completion: CompleteCheckout.Completion
        switch try await complete.landing(sessionID: sessionID, now: now()) {
        case .unpaid(let expired):
            return try pages.render("checkout_pending", language: pages.language(for: request), ["expired": .bool(expired)])
        case .redirect(let url):
            return .redirect(to: url)
        case .paid(let paid):
            completion = paid
        }
        let purchase = completion.completed.purchase
        guard let code = completion.code else {
            throw APIError.forbidden("The code of this purchase was revoked. Contact support if you think this is a mistake.").onPage(
                .errorCodeRevoked)
        }
        // API.md: the success page opens the app by itself (once per tab; the code stays on the page).
        var values = AppLinks(links: links, app: app, code: code).values(
            for: ClientPlatform(userAgent: request.headers["User-Agent"]), autoOpen: true)
        // The page says where the code was mailed only when it could be (one address rule, finding 8).
        if let email = purchase.purchaserEmail, EmailAddressRule.accepts(email) { values["masked_email"] = .string(EmailMask.mask(email)) }
        values["product_name"] = .string(products.name(of: purchase.productID))
        return try pages.render("success", language: pages.language(for: request, kept: completion.completed.checkout?.locale), values)
    }
}
