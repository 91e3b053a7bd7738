import Crypto
import Foundation
import HTTPCore
import HTTPRouting
import Synchronization

/// A fake Stripe API on a loopback port, speaking Stripe's wire format: Bearer secret-key auth
/// (401 with Stripe's error body otherwise), form bodies decoded with Stripe's nested rules,
/// `Idempotency-Key` honoured (same key and body → the same session; same key, other body →
/// 400 `idempotency_error`), unknown parameters refused as Stripe does, and 404
/// `resource_missing` for unknown ids.
///
/// Routes: `POST /v1/checkout/sessions`, `GET /v1/checkout/sessions/{id}` (with
/// `expand[]=subscription`), `GET /v1/subscriptions/{id}`, `GET /v1/charges/{id}`,
/// `GET /v1/events` (see `FakeStripe+Events.swift`).
/// Test controls: `completeSession`, `updateSubscription`, `renewSubscription`, `refund`,
/// `closeDispute`, `putSubscription`, `failNextRequests`; each change is recorded as the event
/// Stripe would send, at the fake clock's time (`events`, `delivery(of:)`). Inspection:
/// `sessions`, `subscription(id:)`, `receivedRequests`; hand-made webhooks:
/// `webhook(type:object:created:)` with the object helpers `sessionObject`, `subscriptionObject`,
/// `invoicePaidObject`. What each field means is written in `FakeStripe/README.md`.
public final class FakeStripe: Sendable {
    /// Why a test control could not act.
    public struct ControlError: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// The secret key requests must carry.
    public let secretKey: String
    /// The endpoint secret webhooks are signed with (`whsec_...`).
    public let webhookSecret: String
    let core: Core
    private let server: FakeHTTPServer

    /// Starts the fake on a free loopback port.
    /// - Parameters:
    ///   - secretKey: the only accepted API key.
    ///   - webhookSecret: the default secret of `webhook(type:object:created:)`.
    ///   - knownPrices: when given, a session for any other price is refused as Stripe does
    ///     (`resource_missing`, `No such price`); nil accepts any `price_` id.
    ///   - now: the fake's clock (session and subscription times).
    /// - Throws: `HTTPServerError` when no port can be bound.
    public init(
        secretKey: String = "sk_test_fake_123", webhookSecret: String = "whsec_test_secret",
        knownPrices: Set<String>? = nil, now: @escaping @Sendable () -> Date = { Date() }
    ) throws {
        self.secretKey = secretKey
        self.webhookSecret = webhookSecret
        let core = Core(secretKey: secretKey, knownPrices: knownPrices, now: now)
        self.core = core
        server = try FakeHTTPServer { request in core.handle(request) }
    }

    /// `http://127.0.0.1:PORT`: the `apiBase` for a `StripeClient`.
    public var baseURL: String { server.baseURL }

    /// Stops the server.
    public func stop() async { await server.stop() }

    /// Every request received, in order (including refused ones).
    public var receivedRequests: [HTTPRequest] { server.requests }

    /// Where the portal URLs it answers point (Stripe's own host, never reached in tests).
    public static let portalBaseURL = "https://billing.stripe.com"

    /// The customer-portal sessions created: for whom, and where they return.
    public var portalSessions: [(customer: String, returnURL: String?)] { core.state.withLock { $0.portalSessions } }

    /// The sessions created so far, in order, with the parameters they were created with.
    public var sessions: [Session] { core.state.withLock { state in state.sessionOrder.compactMap { state.sessions[$0] } } }

    /// The session `id`, if the fake created it.
    public func session(id: String) -> Session? { core.state.withLock { $0.sessions[id] } }

    /// The subscription `id`, if it exists.
    public func subscription(id: String) -> Subscription? { core.state.withLock { $0.subscriptions[id] } }

    /// The buyer finishes the Checkout page: the session becomes `complete` (`paid`, or
    /// `unpaid` for a delayed payment method), gets a customer and `customer_details.email`, and,
    /// as Stripe does, a subscription (subscription mode: `active` when paid, else `incomplete`,
    /// with the session's `subscription_data[metadata]`, a 30-day period) or a payment intent
    /// (payment mode).
    /// - Throws: `ControlError` for an unknown or already completed session.
    @discardableResult
    public func completeSession(id: String, email: String?, paid: Bool = true, periodEnd: Date? = nil) throws -> (
        session: Session, subscription: Subscription?
    ) {
        try core.state.withLock { state in
            guard var session = state.sessions[id] else { throw ControlError(description: "no session \(id)") }
            guard session.status == "open" else { throw ControlError(description: "session \(id) is \(session.status)") }
            let now = core.wholeSecondsNow()
            session.status = "complete"
            session.paymentStatus = paid ? "paid" : "unpaid"
            session.email = email ?? session.customerEmail
            session.customerID = session.customerID ?? "cus_test_\(state.nextSuffix())"
            var subscription: Subscription?
            if session.mode == "subscription" {
                let created = session.created > now ? session.created : now
                let new = Subscription(
                    id: "sub_test_\(state.nextSuffix())", status: paid ? "active" : "incomplete",
                    customerID: session.customerID ?? "", priceID: session.priceID, metadata: session.subscriptionMetadata,
                    created: created, currentPeriodEnd: periodEnd ?? created.addingTimeInterval(30 * 86_400),
                    livemode: session.livemode)
                state.subscriptions[new.id] = new
                session.subscriptionID = new.id
                session.invoiceID = "in_test_\(state.nextSuffix())"
                subscription = new
            } else if session.mode == "payment" {
                session.paymentIntentID = "pi_test_\(state.nextSuffix())"
            }
            state.sessions[id] = session
            // What Stripe sends for a completed page, each event at the moment of the change.
            state.record("checkout.session.completed", FakeStripeJSON.session(session), at: now)
            if let subscription {
                state.record("customer.subscription.created", FakeStripeJSON.subscription(subscription), at: now)
                if paid, let invoiceID = session.invoiceID {
                    let charge = state.charge(customerID: subscription.customerID, invoiceID: invoiceID, paidAt: now)
                    state.record(
                        "invoice.paid", FakeStripeJSON.invoice(id: invoiceID, subscription: subscription, charge: charge, email: session.email),
                        at: now)
                }
            } else if paid, let intent = session.paymentIntentID {
                state.chargeOfIntent[intent] =
                    state.charge(
                        customerID: session.customerID ?? "", paymentIntentID: intent, paidAt: now, subtotal: session.amountSubtotal
                    ).id
            }
            return (session, subscription)
        }
    }

    /// Changes a subscription as Stripe would after a renewal, a failed payment or a
    /// cancellation; nil arguments leave a field alone. `canceled` sets `canceled_at` and `ended_at`.
    /// - Throws: `ControlError` for an unknown subscription.
    @discardableResult
    public func updateSubscription(id: String, status: String? = nil, periodEnd: Date? = nil, cancelAtPeriodEnd: Bool? = nil) throws -> Subscription {
        try core.state.withLock { state in
            guard var subscription = state.subscriptions[id] else { throw ControlError(description: "no subscription \(id)") }
            let now = core.wholeSecondsNow()
            if let status {
                subscription.status = status
                if status == "canceled" || status == "incomplete_expired" {
                    subscription.canceledAt = subscription.canceledAt ?? now
                    subscription.endedAt = subscription.endedAt ?? now
                }
            }
            if let periodEnd {
                subscription.currentPeriodStart =
                    subscription.currentPeriodEnd < periodEnd ? subscription.currentPeriodEnd : subscription.currentPeriodStart
                subscription.currentPeriodEnd = periodEnd
            }
            if let cancelAtPeriodEnd {
                subscription.cancelAtPeriodEnd = cancelAtPeriodEnd
                subscription.canceledAt = cancelAtPeriodEnd ? now : nil
            }
            state.subscriptions[id] = subscription
            let ended = subscription.status == "canceled" || subscription.status == "incomplete_expired"
            state.record(
                ended ? "customer.subscription.deleted" : "customer.subscription.updated", FakeStripeJSON.subscription(subscription), at: now)
            return subscription
        }
    }

    /// Installs (or replaces) a subscription as given.
    public func putSubscription(_ subscription: Subscription) {
        core.state.withLock { $0.subscriptions[subscription.id] = subscription }
    }

    /// Adds a coupon the account has.
    public func addCoupon(_ id: String) {
        core.state.withLock { _ = $0.coupons.insert(id) }
    }

    /// Adds a customer-facing promotion code for `coupon`; returns its `promo_...` id.
    @discardableResult
    public func addPromotionCode(_ code: String, coupon: String, active: Bool = true) -> String {
        core.state.withLock { state in
            let id = "promo_\(state.nextSuffix())"
            state.coupons.insert(coupon)
            state.promotionCodes[code] = (id, coupon, active)
            return id
        }
    }

    /// The next `count` requests get `status` with Stripe's error body (`api_error` for 5xx,
    /// `rate_limit` for 429), before authentication: an outage.
    public func failNextRequests(status: Int, count: Int = 1) {
        core.state.withLock { $0.failures = count > 0 ? (status, count) : nil }
    }
}

extension FakeStripe {
    /// The fake's state and request handling, shared with the server's handler closure.
    final class Core: Sendable {
        struct State {
            var sessions: [String: Session] = [:]
            var sessionOrder: [String] = []
            var subscriptions: [String: Subscription] = [:]
            var idempotency: [String: (body: [UInt8], response: [UInt8])] = [:]
            var failures: (status: Int, remaining: Int)?
            var portalSessions: [(customer: String, returnURL: String?)] = []
            /// Coupon ids the account has.
            var coupons: Set<String> = []
            /// Promotion codes by their customer-facing code.
            var promotionCodes: [String: (id: String, coupon: String, active: Bool)] = [:]
            /// Charges by id, and the charge of each payment intent.
            var charges: [String: Charge] = [:]
            var chargeOfIntent: [String: String] = [:]
            /// Every event, oldest first, as `GET /v1/events` lists them (newest first).
            var events: [Event] = []
            var counter = 0
            /// Tax added to every price, in hundredths of a percent (`setTax(basisPoints:)`).
            var taxBasisPoints = 0

            /// The tax on `subtotal` cents, rounded down.
            func tax(on subtotal: Int) -> Int { subtotal * taxBasisPoints / 10_000 }

            /// A unique, Stripe-looking id suffix.
            mutating func nextSuffix() -> String {
                counter += 1
                let random = (try? SecureRandom.bytes(count: 8)).map { Hex.encode($0) } ?? "0000000000000000"
                return "\(counter)\(random)"
            }
        }

        let secretKey: String
        let knownPrices: Set<String>?
        let now: @Sendable () -> Date
        let state = Mutex(State())

        init(secretKey: String, knownPrices: Set<String>?, now: @escaping @Sendable () -> Date) {
            self.secretKey = secretKey
            self.knownPrices = knownPrices
            self.now = now
        }
    }
}
