import Mail
import Configuration
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
    let config: TollgateConfig
    let now: @Sendable () -> Date

    func add(to group: inout RouteGroup) {
        for method in [HTTPMethod.get, .post] {
            group.add(method, "/checkout/start", maxBodyBytes: 32 * 1024) { [self] request, _ in
                let order = try CheckoutStartRequest(request, config: config).order
                do {
                    return .redirect(to: try await start.start(order, now: now()), status: .seeOther)
                } catch let error as UseCaseError where error.kind == .notConfigured || error.kind == .upstreamUnavailable {
                    // A calm page with a way back: no status code, and no configuration key on it
                    // unless the key is what must change (a plan's price Stripe does not know).
                    var values: [String: TemplateValue] = [:]
                    if error.code == StartCheckout.unknownPriceCode { values["operator_hint"] = .string(error.message) }
                    if request.method == .get { values["retry_url"] = .string(request.target) }
                    if let link = links.app("checkout/cancel") { values["app_link"] = .string(link) }
                    return try pages.render("checkout_unavailable", title: "Checkout is not available", status: .serviceUnavailable, values)
                }
            }
        }
        group.add(.get, "/checkout/success") { [self] request, _ in try await success(request) }
        group.add(.get, "/checkout/cancel") { [pages, links] _, _ in
            var values: [String: TemplateValue] = [:]
            if let link = links.app("checkout/cancel") { values["app_link"] = .string(link) }
            return try pages.render("checkout_cancel", title: "Checkout cancelled", values)
        }
    }

    private func success(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let sessionID = request.queryParameter("session_id"), sessionID.hasPrefix("cs_"), (4...255).contains(sessionID.count),
            sessionID.utf8.allSatisfy({ $0 == UInt8(ascii: "_") || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) })
        else {
            throw APIError.badRequest("This link is missing its checkout session. Open the link from the payment page again.")
        }
        let completion: CompleteCheckout.Completion
        switch try await complete.landing(sessionID: sessionID, now: now()) {
        case .unpaid(let expired):
            return try pages.render("checkout_pending", title: "Payment not completed", ["expired": .bool(expired)])
        case .paid(let paid):
            completion = paid
        }
        let purchase = completion.completed.purchase
        let checkout = completion.completed.checkout
        if config.redemption.mode == .redirect || checkout?.redirectURL != nil {
            return try redirect(completion)
        }
        guard let code = completion.code else {
            throw APIError.forbidden("The code of this purchase was revoked. Contact support if you think this is a mistake.")
        }
        var values = AppLinks(links: links, app: config.app, code: code).values(for: ClientPlatform(userAgent: request.headers["User-Agent"]))
        if let email = purchase.purchaserEmail { values["masked_email"] = .string(EmailMask.mask(email)) }
        values["product_name"] = .string(products.name(of: purchase.productID))
        return try pages.render("success", title: "Thank you", values)
    }

    /// The parameters redirect mode names itself; a custom parameter never stands in for one.
    static let redirectParameters: Set<String> = ["app_user_id", "email", "stripe_subscription_id", "stripe_payment_intent_id", "code"]

    /// Redirect mode: 302 to a configured URL with the purchase in the query.
    private func redirect(_ completion: CompleteCheckout.Completion) throws -> HTTPResponse {
        let purchase = completion.completed.purchase
        let checkout = completion.completed.checkout
        let configured = config.redemption.redirectURLs
        guard let target = checkout?.redirectURL.flatMap({ configured.contains($0) ? $0 : nil }) ?? configured.first else {
            throw APIError(status: .internalServerError, code: "internal", message: "No redirect URL is configured.")
        }
        var parameters: [(String, String)] = []
        if let appUserID = purchase.appUserID { parameters.append(("app_user_id", appUserID)) }
        if let email = purchase.purchaserEmail { parameters.append(("email", email)) }
        if purchase.externalID.hasPrefix("sub_") {
            parameters.append(("stripe_subscription_id", purchase.externalID))
        } else {
            parameters.append(("stripe_payment_intent_id", purchase.externalID))
        }
        if let code = completion.code { parameters.append(("code", code.display)) }
        if let context = checkout?.context, let object = try? JSONSerialization.jsonObject(with: Data(context.utf8)) as? [String: String] {
            // The custom parameters given to /checkout/start and the ply_context fields (ply_<field>),
            // never overriding the purchase's own parameters above.
            for (key, value) in object.sorted(by: { $0.key < $1.key }) where !Self.redirectParameters.contains(key) {
                parameters.append((key, value))
            }
        }
        let query = parameters.map { FormURLEncoding.encode($0.0) + "=" + FormURLEncoding.encode($0.1) }.joined(separator: "&")
        return .redirect(to: target + (target.contains("?") ? "&" : "?") + query)
    }
}
