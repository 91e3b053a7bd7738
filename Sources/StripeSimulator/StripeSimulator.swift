import Crypto
import Foundation
import Integrations
import Logging
import Synchronization

/// A Stripe that runs inside Tollgate for demo mode: the part of Stripe's HTTP API Tollgate
/// calls (served by the web layer under `/demo/stripe`), the hosted checkout page's actions, and
/// webhooks signed and POSTed over HTTP to `/webhooks/stripe` as Stripe sends them. Tollgate
/// reaches it through its real `StripeClient` and verifies its events with its real verifier.
///
/// Its objects live in memory: they stand in for an account at Stripe, not for Tollgate's data,
/// so they stay out of Tollgate's schema (no migration, nothing to clean up in a real database).
/// A restart forgets open sessions and simulated subscriptions; purchases, codes and mail
/// already in Tollgate's database stay.
public final class StripeSimulator: Sendable {
    /// The buttons of the hosted checkout page.
    public enum PaymentChoice: String, Sendable, CaseIterable {
        /// Paid at once.
        case pay
        /// The card is declined: the session stays open, nothing is sent.
        case decline
        /// A delayed payment method: the session completes unpaid, the payment succeeds later.
        case later
    }

    /// What the hosted checkout page shows.
    public struct HostedCheckout: Sendable, Equatable {
        public let sessionID: String
        public let mode: String
        public let priceID: String
        public let prefilledEmail: String?
        public let formToken: String
        public let isOpen: Bool
        /// Where the page sends the buyer back when they give up.
        public let cancelURL: String?
        /// The session's `locale` as Stripe got it (`auto` or none: the browser's language).
        public let locale: String?
    }

    /// What became of a submitted checkout form.
    public enum PaymentResult: Sendable, Equatable {
        /// Go to the session's `success_url` (303).
        case redirect(String)
        /// The card was declined; show the page again.
        case declined
    }

    /// The simulator's credentials.
    public let keys: SimulatorKeys
    /// Mounted here by the web layer: Tollgate's `stripe.api_base` in simulator mode.
    public static let apiPath = "/demo/stripe"
    /// The hosted checkout page, followed by the session id.
    public static let checkoutPath = "/demo/checkout/"

    let publicBaseURL: String
    let webhooks: SimulatorWebhooks
    let now: @Sendable () -> Date
    let payLaterDelay: Duration
    let logger: Logger
    let state = Mutex(SimulatorState())

    /// - Parameters:
    ///   - keys: the demo API key and webhook secret.
    ///   - publicBaseURL: Tollgate's `base_url`; the hosted page's address starts with it.
    ///   - serviceURL: this service's own address as it listens (read when an event is sent);
    ///     webhooks go to `serviceURL() + "/webhooks/stripe"`.
    ///   - http: the outbound transport of the webhooks.
    ///   - payLaterDelay: how long a "pay later" payment takes to succeed.
    public init(
        keys: SimulatorKeys, publicBaseURL: String, serviceURL: @escaping @Sendable () -> String, http: any OutboundHTTPClient,
        logger: Logger, now: @escaping @Sendable () -> Date = { Date() }, payLaterDelay: Duration = .seconds(5)
    ) {
        self.keys = keys
        self.publicBaseURL = publicBaseURL
        self.now = now
        self.payLaterDelay = payLaterDelay
        self.logger = logger
        webhooks = SimulatorWebhooks(secret: keys.webhookSecret, serviceURL: serviceURL, http: http, logger: logger, now: now)
    }

    /// Records `events` (`GET /v1/events` lists them) and sends them as webhooks, in order.
    func publish(_ events: [SimulatorEvent]) async {
        guard !events.isEmpty else { return }
        state.withLock { $0.record(events) }
        await webhooks.send(events)
    }

    /// The hosted page's address for session `id`.
    func hostedURL(_ id: String) -> String { publicBaseURL + Self.checkoutPath + id }

    func wholeSecondsNow() -> Date { Date(timeIntervalSince1970: now().timeIntervalSince1970.rounded(.down)) }

    // MARK: The hosted checkout page

    /// The page of session `id`, or nil when the simulator does not know it.
    public func hostedCheckout(id: String) -> HostedCheckout? {
        state.withLock { state in
            state.sessions[id].map {
                HostedCheckout(
                    sessionID: $0.id, mode: $0.mode, priceID: $0.priceID, prefilledEmail: $0.customerEmail, formToken: $0.formToken,
                    isOpen: $0.status == "open", cancelURL: $0.cancelURL, locale: $0.locale)
            }
        }
    }

    /// The buyer pressed one of the page's buttons. Paying completes the session, sends the
    /// events Stripe sends (awaited, so the buyer lands after them) and answers the
    /// `success_url`; paying later completes it unpaid and sends the payment's success after
    /// `payLaterDelay`; declining changes nothing.
    /// - Throws: `StripeSimulatorError` (`.notFound`, `.forbidden`, `.invalid`) for an unknown session, a wrong form token or a missing email.
    public func submit(sessionID: String, formToken: String, email: String, choice: PaymentChoice) async throws -> PaymentResult {
        let email = email.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let session = state.withLock({ $0.sessions[sessionID] }) else {
            throw StripeSimulatorError(.notFound, "This demo checkout does not exist (the demo forgets checkouts when it restarts).")
        }
        guard ConstantTime.equals(Array(formToken.utf8), Array(session.formToken.utf8)) else {
            throw StripeSimulatorError(.forbidden, "This form is out of date. Open the checkout page again.")
        }
        guard session.status == "open" else { return .redirect(session.successRedirect) }
        if choice == .decline { return .declined }
        guard email.contains("@"), email.utf8.count <= 254, !email.contains(where: \.isWhitespace) else {
            throw StripeSimulatorError(.invalid, "Enter an email address to pay with.")
        }
        let events = complete(sessionID: sessionID, email: email, paid: choice == .pay)
        await publish(events)
        if choice == .later {
            let delay = payLaterDelay
            Task { [self] in
                try? await Task.sleep(for: delay)
                await publish(succeedLaterPayment(sessionID: sessionID))
            }
        }
        return .redirect(session.successRedirect)
    }
}
