import Crypto
import Domain
import Foundation
import Integrations
import JSON
import Logging
import Storage

/// `/checkout/start`: opens a Stripe Checkout Session for a plan and records who started it, so
/// the purchase can be linked to that app user and the app can poll with its
/// `checkout_context_id`. A double tap with the same `checkout_context_id` opens one session.
public struct StartCheckout: Sendable {
    /// A discount the paywall asks for (Cleeng-style coupon codes).
    public enum Discount: Sendable, Equatable {
        /// A customer-facing Stripe promotion code, looked up before the session is opened.
        case promotionCode(String)
        /// A Stripe coupon id.
        case coupon(String)

        /// What was sent.
        public var text: String {
            switch self {
            case .promotionCode(let code), .coupon(let code): code
            }
        }

        /// The `/checkout/start` input it came from.
        public var inputName: String {
            switch self {
            case .promotionCode: "promotion_code"
            case .coupon: "coupon"
            }
        }
    }

    /// An order as the paywall sent it, each input decoded and within API.md's bounds (the web
    /// layer's job); which plan it names and whether its redirect URL is allowed are decided here.
    public struct Order: Sendable {
        /// How the paywall named the plan (`plan`, `price_id`, `plan_id`, `ply_context`'s `stripe_price_id`).
        public var planNamings: [CheckoutPlanChoice.Naming]
        public var appUserID: String?
        public var checkoutContextID: String?
        public var email: String?
        /// One of `redemption.redirect_urls`, or the order is refused.
        public var redirectURL: String?
        public var discount: Discount?
        /// `ply_context` members (as `ply_<field>`) and the custom parameters: carried in the
        /// session's metadata, kept as the purchase's attribution and given back to a redirect.
        public var context: [String: String]
        /// Where the app runs and its platform's token, when it linked out (`LinkOutCheckout`).
        public var linkOut: LinkOutCheckout.Request
        /// The buyer's language (`BuyerLanguage`): Stripe's page, and kept for the purchase.
        public var locale: String?
        /// The install's secret, kept as its hash with the checkout (bound or checked when paid).
        public var appUserSecret: InstallSecret?
        /// The account signed in on this browser (its cookie session), if any.
        public var accountID: String?

        public init(
            planNamings: [CheckoutPlanChoice.Naming], appUserID: String?, checkoutContextID: String?, email: String?, redirectURL: String?,
            discount: Discount? = nil, context: [String: String] = [:],
            linkOut: LinkOutCheckout.Request = .init(platform: nil, storefront: nil, externalPurchaseToken: nil, externalTransactionToken: nil),
            appUserSecret: InstallSecret? = nil
        ) {
            self.appUserSecret = appUserSecret
            self.linkOut = linkOut
            self.planNamings = planNamings
            self.appUserID = appUserID
            self.checkoutContextID = checkoutContextID
            self.email = email
            self.redirectURL = redirectURL
            self.discount = discount
            self.context = context
        }
    }

    let database: Database
    let stripe: StripeClient?
    let links: Links
    /// `plans`: what may be bought, by name.
    let plans: [String: CheckoutPlan]
    /// The redirect URLs an order may name.
    let redirects: CheckoutRedirects
    let allowPromotionCodes: Bool
    /// Which storefronts may link out, and the tokens their programmes need.
    let linkOut: LinkOutCheckout
    let tokenVault: LinkOutTokenVault
    let logger: Logger
    /// Refuses a plan the buyer already holds (`checkout.on_already_entitled`); nil: never.
    let alreadyEntitled: AlreadyEntitledCheck?

    public init(
        database: Database, stripe: StripeClient?, links: Links, plans: [String: CheckoutPlan], redirects: CheckoutRedirects,
        allowPromotionCodes: Bool, linkOut: LinkOutCheckout, tokenVault: LinkOutTokenVault, logger: Logger,
        alreadyEntitled: AlreadyEntitledCheck? = nil
    ) {
        self.alreadyEntitled = alreadyEntitled
        self.linkOut = linkOut
        self.tokenVault = tokenVault
        self.plans = plans
        self.redirects = redirects
        self.database = database
        self.stripe = stripe
        self.links = links
        self.allowPromotionCodes = allowPromotionCodes
        self.logger = logger
    }

    /// What a start led to: Stripe's checkout page, or a refusal because the app user or the
    /// signed-in account already holds what the plan grants.
    public enum Begun: Sendable, Equatable {
        case checkout(url: String)
        case alreadyEntitled(AlreadyEntitledCheck.Refusal)
    }

    /// `start`, after checking (under `checkout.on_already_entitled: refuse`) that the buyer does
    /// not already hold, from any store, everything the plan grants.
    /// - Throws: as `start`.
    public func begin(_ order: Order, now: Date) async throws -> Begun {
        if let check = alreadyEntitled, check.refuses, order.appUserID != nil || order.accountID != nil {
            let choice = try CheckoutPlanChoice(order.planNamings, plans: plans)
            if let refusal = try await check.holding(
                appUserID: order.appUserID, accountID: order.accountID, priceIDs: [choice.plan.priceID], now: now)
            {
                return .alreadyEntitled(refusal)
            }
        }
        return .checkout(url: try await start(order, now: now))
    }

    /// The URL of Stripe's checkout page for `order`.
    /// - Throws: `UseCaseError` (`bad_request` for a plan that is not offered or namings that
    ///   disagree (`CheckoutPlanChoice`), a redirect URL that is not configured and a link-out
    ///   the storefront's programme refuses (`LinkOutCheckout`),
    ///   `not_configured` without Stripe, `conflict` for a `checkout_context_id` already used by
    ///   another checkout, `upstream_unavailable` when Stripe refuses or cannot be reached), `StorageError`.
    public func start(_ order: Order, now: Date) async throws -> String {
        let choice = try CheckoutPlanChoice(order.planNamings, plans: plans)
        try redirects.check(order.redirectURL)
        let token = try linkOut.check(order.linkOut)
        guard let stripe else {
            // The key's name is for the operator's log, not for the buyer's page.
            logger.error("checkout_not_configured", [("missing", .string("stripe.secret_key (or stripe.simulator in demo mode)"))])
            throw UseCaseError.notConfigured("Checkout is not available on this server yet.")
        }
        if let contextID = order.checkoutContextID,
            let existing = try await database.read({ try CheckoutRepository.find(contextID: contextID, on: $0) }),
            existing.status != "open"
        {
            throw Self.contextUsed
        }
        // Stripe's client_reference_id holds 200 characters; a longer app user id travels in the
        // metadata and the checkout's record, which completing the checkout reads first.
        let clientReferenceID = order.appUserID.flatMap { $0.unicodeScalars.count <= CheckoutSessionRequest.maxClientReferenceIDLength ? $0 : nil }
        let request = CheckoutSessionRequest(
            mode: choice.plan.isOneTimePayment ? .payment : .subscription, priceID: choice.plan.priceID,
            successURL: links.url("/checkout/success") + "?session_id={CHECKOUT_SESSION_ID}",
            cancelURL: links.url("/checkout/cancel"), clientReferenceID: clientReferenceID, customerEmail: order.email,
            metadata: Self.metadata(order, choice: choice), allowPromotionCodes: allowPromotionCodes ? true : nil,
            discount: try await stripeDiscount(order.discount, stripe: stripe),
            locale: order.locale.map(CheckoutSessionRequest.stripeLocale(for:)))
        // A double tap with the same checkout_context_id must not open two sessions.
        let idempotencyKey = try order.checkoutContextID.map { "checkout:" + $0 } ?? "checkout:" + OpaqueToken.generate()
        let session: StripeCheckoutSession
        do {
            session = try await stripe.createCheckoutSession(request, idempotencyKey: idempotencyKey)
        } catch StripeError.api(let error) {
            logger.error(
                "stripe_checkout_failed",
                [
                    ("type", .string(error.type)), ("code", .string(error.code ?? "")), ("param", .string(error.param ?? "")),
                    ("message", .string(error.message))
                ])
            throw refusal(error, order: order, choice: choice)
        } catch is UpstreamError {
            throw UseCaseError.upstreamUnavailable("Stripe cannot be reached right now. Please try again in a minute.")
        }
        guard let url = session.url else {
            throw UseCaseError.upstreamUnavailable("Stripe did not return a checkout page. Please try again.")
        }
        let start = CheckoutRepository.Start(
            sessionID: session.id, checkoutContextID: order.checkoutContextID, appUserID: order.appUserID, plan: choice.name,
            priceID: choice.plan.priceID, mode: choice.plan.isOneTimePayment ? "payment" : "subscription", email: order.email,
            redirectURL: order.redirectURL, context: Self.contextJSON(order.context), locale: order.locale,
            appUserSecretHash: order.appUserSecret?.hash)
        do {
            let vault = tokenVault
            try await database.write { connection in
                try CheckoutRepository.recordStart(start, on: connection, now: now)
                // Kept with the checkout, sealed, in the same transaction: its purchase is reported under it.
                if let token { try LinkOutTokenRepository.attach(token, toCheckout: start.sessionID, vault: vault, on: connection, now: now) }
            }
        } catch let error as DomainError where error.kind == .conflict {
            // Stripe answered another session for a context id already recorded (its idempotency
            // window passed, or the order changed): the app must start a new checkout.
            throw Self.contextUsed
        }
        return url
    }

    /// The Stripe discount for `discount`: a coupon as given, a promotion code looked up.
    /// - Throws: `UseCaseError.badRequest` for a promotion code Stripe does not have (active),
    ///   `upstream_unavailable` when Stripe cannot be asked.
    private func stripeDiscount(_ discount: Discount?, stripe: StripeClient) async throws -> CheckoutSessionRequest.Discount? {
        switch discount {
        case nil: return nil
        case .coupon(let id): return .coupon(id)
        case .promotionCode(let code):
            let found: StripePromotionCode?
            do {
                found = try await stripe.findPromotionCode(code)
            } catch StripeError.request {
                found = nil
            } catch StripeError.api(let error) {
                logger.error("stripe_promotion_code_lookup_failed", [("code", .string(error.code ?? "")), ("message", .string(error.message))])
                throw UseCaseError.upstreamUnavailable("Stripe could not check the promotion code. Please try again later.")
            } catch is UpstreamError {
                throw UseCaseError.upstreamUnavailable("Stripe cannot be reached right now. Please try again in a minute.")
            }
            guard let found else { throw UseCaseError.badRequest("The promotion code \(code) is not valid (unknown, expired or used up).") }
            return .promotionCode(found.id)
        }
    }

    /// What the buyer is told when Stripe refuses the session: an unknown coupon is their input
    /// (400); an unknown price is the operator's configuration, named with its key (503);
    /// anything else is Stripe's (502, retryable).
    private func refusal(_ error: StripeError.API, order: Order, choice: CheckoutPlanChoice) -> UseCaseError {
        let param = error.param ?? ""
        if error.isResourceMissing, param.hasPrefix("discounts"), let discount = order.discount {
            return .badRequest("The \(discount.inputName == "coupon" ? "coupon" : "promotion code") \(discount.text) is not valid.")
        }
        if error.isResourceMissing, param.hasPrefix("line_items") {
            let key = "plans.\(choice.name).price_id"
            return UseCaseError(
                .notConfigured, code: Self.unknownPriceCode,
                "Stripe does not know the price \(choice.plan.priceID) of the plan \"\(choice.name)\". "
                    + "Set \(key) to a price of this Stripe account (a price_... id from the dashboard).")
        }
        return .upstreamUnavailable("Stripe refused to start the checkout. Please try again later.")
    }

    /// The Stripe metadata: the plan, who started it and the context, within Stripe's limits
    /// (50 keys, keys of 40 characters without brackets, values of 500).
    static func metadata(_ order: Order, choice: CheckoutPlanChoice) -> [String: String] {
        var metadata: [String: String] = ["price_id": choice.plan.priceID, "plan": choice.name]
        if let appUserID = order.appUserID { metadata["app_user_id"] = appUserID }
        if let checkoutContextID = order.checkoutContextID { metadata["checkout_context_id"] = checkoutContextID }
        for (key, value) in order.context.sorted(by: { $0.key < $1.key }) where metadata.count < CheckoutSessionRequest.maxMetadataKeys {
            let safeKey = String(key.filter { $0 != "[" && $0 != "]" }.prefix(CheckoutSessionRequest.maxMetadataKeyLength))
            if !safeKey.isEmpty { metadata[safeKey] = String(value.prefix(CheckoutSessionRequest.maxMetadataValueLength)) }
        }
        return metadata
    }

    /// The context as a JSON object text, for the checkout record and the purchase's attribution.
    static func contextJSON(_ context: [String: String]) -> String {
        let members = context.sorted { $0.key < $1.key }.map { (key: $0.key, value: JSONValue.string($0.value)) }
        return String(decoding: JSONValue.object(members).serialized(), as: UTF8.self)
    }

    /// The code of the refusal for a plan whose price Stripe does not know: the page names the
    /// plan and the key to fix, for the operator trying their set-up.
    public static let unknownPriceCode = "unknown_price"

    static let contextUsed = UseCaseError.conflict(
        "This checkout was already started. Go back to the app and start the purchase again.")
}
