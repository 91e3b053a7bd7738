import Domain
import Foundation
import Integrations
import Logging
import Storage

/// Keeps Stripe purchases true from verified webhook events (and the same events read back by the
/// reconciler): completes paid checkouts and applies subscription, invoice, refund and dispute
/// events, never moving a purchase back in time. A purchase made under a link-out token also gets
/// its renewals and refunds queued for the platform's report (`StripeLinkOutReports`), in the
/// transaction that applies them. Every snapshot an event makes carries the
/// event's `created`, the time Stripe says the change happened (never an object's own `created`:
/// a refunded Charge's is when it was paid). Each event is applied once (its id recorded in the
/// same transaction as its effect).
public struct ApplyStripeEvent: Sendable {
    /// What became of an event.
    public enum Outcome: String, Sendable {
        case applied
        /// Its id was seen before: nothing done twice.
        case duplicate
        /// Well-formed but nothing Tollgate can use (a setup-mode session, no subscription, an
        /// unknown mode): recorded, logged, nothing else stored.
        case ignored
    }

    /// A webhook delivery, verified and applied.
    public struct Delivery: Sendable {
        public var eventID: String
        public var type: String
        public var outcome: Outcome
    }

    let database: Database
    let stripe: StripeClient
    /// `stripe.webhook_secrets` or `stripe.webhook_secret` (the simulator's in demo mode): an event
    /// signed with any of them is accepted; empty when webhooks are not configured.
    let webhookSecrets: [String]
    let completeCheckout: CompleteCheckout
    let webhookEvents: WebhookEvents
    let logger: Logger
    let events: EventQueue
    let vouching: StripeVouching
    /// Called after a commit that may have queued a link-out report (wakes the report worker).
    let linkOutQueued: @Sendable () -> Void

    public init(
        database: Database, stripe: StripeClient, webhookSecret: String? = nil, webhookSecrets: [String] = [], completeCheckout: CompleteCheckout,
        vouching: StripeVouching, logger: Logger, events: EventQueue = .disabled, linkOutQueued: @escaping @Sendable () -> Void = {}
    ) {
        self.linkOutQueued = linkOutQueued
        self.webhookSecrets = webhookSecrets + (webhookSecret.map { [$0] } ?? [])
        self.vouching = vouching
        self.events = events
        self.database = database
        self.stripe = stripe
        self.completeCheckout = completeCheckout
        webhookEvents = WebhookEvents(database: database, source: "stripe")
        self.logger = logger
    }

    /// `POST /webhooks/stripe`: the raw body verified (signature, 300 s tolerance) before any
    /// parsing, then applied.
    /// - Parameter requestLogger: the request's logger (its id), for a rejected delivery's warning.
    /// - Throws: `UseCaseError.notConfigured` without a webhook secret; `UseCaseError.badRequest`,
    ///   with nothing stored, for a bad signature, a stale timestamp or an event that cannot be
    ///   read; else as `apply(_:now:)`.
    public func receive(payload: [UInt8], signatureHeader: String?, now: Date, requestLogger: Logger? = nil) async throws -> Delivery {
        guard !webhookSecrets.isEmpty else {
            throw UseCaseError.notConfigured("Stripe webhooks are not configured on this server (stripe.webhook_secret, stripe.secret_key).")
        }
        let event: StripeEvent
        do {
            event = try StripeWebhookVerifier(secrets: webhookSecrets).verifiedEvent(payload: payload, signatureHeader: signatureHeader, now: now)
        } catch StripeError.webhook(let error) {
            (requestLogger ?? logger).warning("stripe_webhook_rejected", [("reason", .string(error.description))])
            throw UseCaseError.badRequest(error.description)
        } catch StripeError.decoding(let error) {
            throw UseCaseError.badRequest("The event cannot be read: \(error)")
        }
        return Delivery(eventID: event.id, type: event.type, outcome: try await apply(event, now: now))
    }

    /// The events of `events` not applied before, in their order (one read per 500 events).
    /// - Throws: `StorageError`.
    public func unseen(_ events: [StripeEvent]) async throws -> [StripeEvent] {
        let seen = try await webhookEvents.recorded(among: events.map(\.id))
        return events.filter { !seen.contains($0.id) }
    }

    /// - Throws: `UseCaseError.unavailable` when Stripe must be read and cannot be (Stripe
    ///   retries), `StorageError`.
    public func apply(_ event: StripeEvent, now: Date) async throws -> Outcome {
        do {
            return try await applyReading(event, now: now)
        } catch let error as UpstreamError {
            logger.warning("stripe_webhook_deferred", [("event_id", .string(event.id)), ("reason", .string(error.description))])
            throw UseCaseError.unavailable("Stripe could not be read; retry later.")
        } catch let error as DomainError where error.dropsStripeObject {
            return try await ignore(event, reason: error.description, now: now)
        }
    }

    /// Records an event that stands for nothing Tollgate can use, so Stripe stops sending it.
    private func ignore(_ event: StripeEvent, reason: String, now: Date) async throws -> Outcome {
        logger.warning("stripe_event_ignored", [("event_id", .string(event.id)), ("reason", .string(reason))])
        return try await webhookEvents.record(event.id, type: event.type, now: now) { _ in } ? .ignored : .duplicate
    }

    private func applyReading(_ event: StripeEvent, now: Date) async throws -> Outcome {
        switch event.payload {
        case .checkoutSessionCompleted(let session), .checkoutSessionAsyncPaymentSucceeded(let session):
            guard session.isPaid else { return try await record(event, now: now) { _ in } }
            if try await webhookEvents.seen(event.id) { return .duplicate }
            let completeCheckout = self.completeCheckout
            let subscription = try await completeCheckout.subscription(of: session)
            // The completion and the event id in one write: neither is kept without the other.
            let written = try await webhookEvents.once(event.id, type: event.type, now: now) { connection in
                try completeCheckout.write(session, subscription: subscription, changedAt: event.created, on: connection, now: now)
            }
            guard let written else { return .duplicate }
            completeCheckout.committed(written)
            return .applied
        case .subscriptionCreated(let subscription), .subscriptionUpdated(let subscription), .subscriptionDeleted(let subscription):
            let snapshot = subscription.snapshot(observedAt: event.created, purchaserEmail: nil)
            let events = self.events
            let vouching = self.vouching
            return try await record(event, now: now) { connection in
                let applied = try PurchaseRepository.apply(snapshot, on: connection, now: now, admitting: Self.vouched(snapshot, vouching))
                try events.purchaseApplied(applied, on: connection, now: now)
            }
        case .invoicePaid(let invoice):
            guard let subscriptionID = invoice.subscriptionID else { return try await record(event, now: now) { _ in } }
            if try await webhookEvents.seen(event.id) { return .duplicate }
            // The invoice is a hint: the subscription says how long access now lasts. Its state is
            // at least as new as the payment, which is when the change happened: a payment
            // refunded since (or an invoice.paid delivered late) never undoes the refund.
            let subscription = try await stripe.retrieveSubscription(id: subscriptionID)
            let snapshot = subscription.snapshot(observedAt: event.created, purchaserEmail: invoice.customerEmail)
            let events = self.events
            let vouching = self.vouching
            let outcome = try await record(event, now: now) { connection in
                let applied = try PurchaseRepository.apply(snapshot, on: connection, now: now, admitting: Self.vouched(snapshot, vouching))
                try events.purchaseApplied(applied, on: connection, now: now)
                // A refund or a dispute names the charge's payment intent; since API version
                // 2025-03-31 the invoice is the link back (its payments are not in the event).
                for alias in [invoice.id, invoice.paymentIntentID].compactMap({ $0 }) {
                    try PurchaseRepository.addAlias(platform: .stripe, alias: alias, purchaseID: applied.purchase.id, on: connection)
                }
                try StripeLinkOutReports.invoicePaid(
                    invoice, subscription: subscription, purchase: applied.purchase, paidAt: event.created, on: connection, now: now)
            }
            if outcome == .applied { linkOutQueued() }
            return outcome
        case .chargeRefunded(let charge):
            // A full refund ends what the charge paid for; a partial one changes no access. Both
            // are reported when the purchase was made under a link-out token.
            return try await endPaidAccess(
                event, references: [charge.paymentIntentID, charge.invoiceID], endsAccess: charge.isFullyRefunded,
                refundedTotal: charge.amountRefunded, now: now)
        case .disputeClosed(let dispute):
            // A lost chargeback returned the money: it counts as a refund. Won or withdrawn: nothing.
            guard dispute.isLost else { return try await record(event, now: now) { _ in } }
            var references = [dispute.paymentIntentID]
            if dispute.paymentIntentID == nil, try await !webhookEvents.seen(event.id) {
                // Charges made without a payment intent: the charge names its invoice, if any.
                do {
                    let charge = try await stripe.retrieveCharge(id: dispute.chargeID)
                    references += [charge.paymentIntentID, charge.invoiceID]
                } catch StripeError.api {
                    // Stripe does not show that charge (another account's, a restricted key).
                }
            }
            return try await endPaidAccess(event, references: references, endsAccess: true, refundedTotal: nil, now: now)
        case .unhandled:
            return try await record(event, now: now) { _ in }
        }
    }

    /// Marks the purchase one of `references` names (payment intent, invoice) refunded when
    /// `endsAccess`, as of the event's time: the change happened when the event says, whatever the
    /// charge's own age. A subscription's charge names only its payment intent: the invoice it
    /// paid is asked of Stripe. The refund (`refundedTotal` returned so far; nil: all) is queued
    /// for the link-out report of the payment it refunds.
    private func endPaidAccess(_ event: StripeEvent, references: [String?], endsAccess: Bool, refundedTotal: Int?, now: Date) async throws -> Outcome
    {
        if try await webhookEvents.seen(event.id) { return .duplicate }
        let logger = self.logger
        let events = self.events
        var references = references.compactMap { $0 }
        let known = references
        if try await database.read({ connection in
            try known.allSatisfy { try PurchaseRepository.find(platform: .stripe, reference: $0, on: connection) == nil }
        }), let intent = known.first(where: { $0.hasPrefix("pi_") }) {
            do {
                references += try await stripe.invoiceIDs(paidBy: intent)
            } catch StripeError.api {
                // Stripe refused the lookup (a key without that permission): nothing more to go on.
            }
        }
        let outcome = try await record(event, now: now) { [references] connection in
            guard let found = try references.lazy.compactMap({ try PurchaseRepository.find(platform: .stripe, reference: $0, on: connection) }).first
            else {
                logger.warning("stripe_refund_unmatched", [("event_id", .string(event.id)), ("type", .string(event.type))])
                return
            }
            // Read again under the purchase's lock (READ COMMITTED): the change time below, and what
            // earlier refunds reported, are what the purchase's last writer committed.
            try PurchaseRepository.lock(platform: .stripe, externalID: found.externalID, on: connection)
            try StripeLinkOutReports.refunded(
                found, references: references, refundedTotal: refundedTotal, refundedAt: event.created, on: connection, now: now)
            guard endsAccess else { return }
            let purchase = try PurchaseRepository.require(id: found.id, on: connection)
            // A one-time purchase is paid once: its refund is final, even when the purchase was
            // recorded after the refund happened (the success page read before the event came).
            // A subscription's refund is ordered like any change: a later paid renewal wins.
            let changedAt = purchase.expiresAt == nil ? max(event.created, purchase.observedAt) : event.created
            let refunded = PurchaseSnapshot(
                platform: .stripe, externalID: purchase.externalID, productID: purchase.productID, status: .refunded,
                expiresAt: purchase.expiresAt, environment: purchase.environment, observedAt: changedAt)
            try events.purchaseApplied(try PurchaseRepository.apply(refunded, on: connection, now: now), on: connection, now: now)
        }
        if outcome == .applied { linkOutQueued() }
        return outcome
    }

    /// A subscription becomes (or stays) a purchase only when this deployment vouches for it: the
    /// check `PurchaseRepository.apply` makes once it has read whether the purchase is stored.
    private static func vouched(_ snapshot: PurchaseSnapshot, _ vouching: StripeVouching) -> (_ known: Bool) throws -> Void {
        { known in try vouching.require(objectID: snapshot.externalID, priceID: snapshot.productID, known: known) }
    }

    private func record(_ event: StripeEvent, now: Date, _ effects: @escaping @Sendable (Connection) throws -> Void) async throws -> Outcome {
        try await webhookEvents.record(event.id, type: event.type, now: now, effects) ? .applied : .duplicate
    }
}
