import Configuration
import Crypto
import Domain
import Foundation
import HTTPServer
import Integrations
import Templating

/// The browser side of web checkout: `/checkout/start` (to Stripe), `/checkout/success`
/// (the landing after payment: the code page or a redirect to the app's URL) and
/// `/checkout/cancel`.
struct CheckoutRoutes {
    let services: AppServices

    func register(on router: inout Router) {
        for method in [HTTPMethod.get, .post] {
            router.add(method, "/checkout/start", maxBodyBytes: 32 * 1024) { [services] request, _ in
                try await start(request, services: services)
            }
        }
        router.add(.get, "/checkout/success") { [services] request, _ in
            try await success(request, services: services)
        }
        router.add(.get, "/checkout/cancel") { [services] request, _ in
            var values: [String: TemplateValue] = [:]
            if !services.config.app.scheme.isEmpty { values["app_link"] = .string("\(services.config.app.scheme)://checkout/cancel") }
            return try services.pages.render("checkout_cancel", title: "Checkout cancelled", values)
        }
    }

    private func start(_ request: HTTPRequest, services: AppServices) async throws -> HTTPResponse {
        guard let stripe = services.stripe else {
            throw APIError(status: .serviceUnavailable, code: "upstream_unavailable", message: "Checkout is not set up on this server yet (stripe.secret_key).")
        }
        let input = try CheckoutStartRequest(request, config: services.config)
        let checkoutRequest = CheckoutSessionRequest(
            mode: input.plan.mode == .payment ? .payment : .subscription, priceID: input.plan.priceID,
            successURL: services.url("/checkout/success") + "?session_id={CHECKOUT_SESSION_ID}",
            cancelURL: services.url("/checkout/cancel"), clientReferenceID: input.appUserID, customerEmail: input.email,
            metadata: input.metadata(), allowPromotionCodes: services.config.stripe.allowPromotionCodes ? true : nil)
        // A double tap with the same checkout_context_id must not open two sessions.
        let idempotencyKey = try input.checkoutContextID.map { "checkout:" + $0 } ?? "checkout:" + OpaqueToken.generate()
        let session: StripeCheckoutSession
        do {
            session = try await stripe.createCheckoutSession(checkoutRequest, idempotencyKey: idempotencyKey)
        } catch let error as StripeAPIError {
            services.logger.error("stripe_checkout_failed", [("type", .string(error.type)), ("code", .string(error.code ?? ""))])
            throw APIError(status: .badGateway, code: "upstream_unavailable", message: "Stripe refused to start the checkout. Please try again later.")
        } catch is UpstreamError {
            throw APIError.upstreamUnavailable("Stripe cannot be reached right now. Please try again in a minute.")
        }
        guard let url = session.url else {
            throw APIError.upstreamUnavailable("Stripe did not return a checkout page. Please try again.")
        }
        let now = services.now()
        try await services.database.write { connection in
            try CheckoutRepository.recordStart(
                CheckoutRepository.Start(
                    sessionID: session.id, checkoutContextID: input.checkoutContextID, appUserID: input.appUserID,
                    plan: input.planName, priceID: input.plan.priceID, mode: input.plan.mode.rawValue, email: input.email,
                    redirectURL: input.redirectURL, context: input.contextJSON()),
                on: connection, now: now)
        }
        return .redirect(to: url, status: .seeOther)
    }

    private func success(_ request: HTTPRequest, services: AppServices) async throws -> HTTPResponse {
        guard let sessionID = request.queryParameter("session_id"), sessionID.hasPrefix("cs_"), sessionID.count <= 255,
            sessionID.utf8.allSatisfy({ $0 == UInt8(ascii: "_") || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) })
        else {
            throw APIError.badRequest("This link is missing its checkout session. Open the link from the payment page again.")
        }
        let now = services.now()
        // Refresh-safe: once completed, the same code is shown without asking Stripe again.
        let known = try await services.database.read { connection -> StripeSync.Completion? in
            guard let checkout = try CheckoutRepository.find(sessionID: sessionID, on: connection), let purchaseID = checkout.purchaseID,
                let purchase = try PurchaseRepository.find(id: purchaseID, on: connection),
                let code = try CodeRepository.latest(purchaseID: purchaseID, on: connection)
            else { return nil }
            let revealed = code.status == .revoked ? nil : try CodeRepository.reveal(code, vault: services.vault)
            return StripeSync.Completion(
                completed: CheckoutCompletion.Completed(purchase: purchase, checkout: checkout, issued: nil, code: code, linkedAccount: nil),
                code: revealed)
        }
        let completion: StripeSync.Completion
        if let known {
            completion = known
        } else {
            guard let stripe = services.stripe else {
                throw APIError(status: .serviceUnavailable, code: "upstream_unavailable", message: "Checkout is not set up on this server yet.")
            }
            let session: StripeCheckoutSession
            do {
                session = try await stripe.retrieveCheckoutSession(id: sessionID, expandSubscription: true)
            } catch let error as StripeAPIError where error.isResourceMissing {
                throw APIError.notFound("We do not know this checkout. If you paid, check your email for your code.")
            } catch is UpstreamError {
                throw APIError.upstreamUnavailable("We could not confirm your payment with Stripe just now. Refresh this page in a minute.")
            }
            guard session.isPaid else {
                return try services.pages.render("checkout_pending", title: "Payment not completed", [
                    "expired": .bool(session.status == .expired),
                ])
            }
            completion = try await StripeSync(services: services, stripe: stripe).complete(session, now: now)
        }
        let purchase = completion.completed.purchase
        let checkout = completion.completed.checkout
        if services.config.redemption.mode == .redirect || checkout?.redirectURL != nil {
            return try redirect(completion, services: services)
        }
        guard let code = completion.code else {
            throw APIError.forbidden("The code of this purchase was revoked. Contact support if you think this is a mistake.")
        }
        var values = AppLinks(services: services, code: code).values(for: ClientPlatform(userAgent: request.headers["User-Agent"]))
        if let email = purchase.purchaserEmail { values["masked_email"] = .string(EmailMask.mask(email)) }
        values["product_name"] = .string(services.productName(purchase.productID))
        return try services.pages.render("success", title: "Thank you", values)
    }

    /// Redirect mode: 302 to a configured URL with the purchase in the query.
    private func redirect(_ completion: StripeSync.Completion, services: AppServices) throws -> HTTPResponse {
        let purchase = completion.completed.purchase
        let checkout = completion.completed.checkout
        let configured = services.config.redemption.redirectURLs
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
            for (key, value) in object.sorted(by: { $0.key < $1.key }) where key.hasPrefix("utm_") || key.hasPrefix("campaign_") {
                parameters.append((key, value))
            }
        }
        let query = parameters.map { FormURLEncoding.encode($0.0) + "=" + FormURLEncoding.encode($0.1) }.joined(separator: "&")
        return .redirect(to: target + (target.contains("?") ? "&" : "?") + query)
    }
}
