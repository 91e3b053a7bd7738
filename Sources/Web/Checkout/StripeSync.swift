import Crypto
import Domain
import Foundation
import Integrations
import Storage

/// Keeps Stripe purchases true: completes paid checkouts (from the success page or the
/// webhook, whichever comes first — the single database writer makes the second a no-op) and
/// applies subscription, invoice and refund events, never moving a purchase back in time.
struct StripeSync {
    let services: AppServices
    let stripe: StripeClient

    /// The state after a checkout completed.
    struct Completion {
        let completed: CheckoutCompletion.Completed
        /// The newest code, readable again (nil when it was revoked).
        let code: RedemptionCode?
    }

    /// Completes a paid session: purchase, link, one code, one email — in one transaction.
    /// `session` must carry its subscription (expanded or fetched) in subscription mode.
    /// - Throws: `UpstreamError` when Stripe cannot be reached for the subscription.
    func complete(_ session: StripeCheckoutSession, now: Date) async throws -> Completion {
        var fetched = session.subscription
        if session.mode == .subscription, fetched == nil, let id = session.subscriptionID {
            fetched = try await stripe.retrieveSubscription(id: id)
        }
        let subscription = fetched
        let services = self.services
        let result = try await services.database.write { connection -> Completion in
            let checkout = try CheckoutRepository.find(sessionID: session.id, on: connection)
            guard let snapshot = Self.snapshot(session, subscription: subscription, checkout: checkout, now: now) else {
                throw StripeSyncError.unusableSession(session.id)
            }
            let paid = CheckoutCompletion.PaidCheckout(
                sessionID: session.id, snapshot: snapshot,
                aliases: [session.subscriptionID, session.paymentIntentID, session.invoiceID].compactMap { $0 },
                email: session.email, clientReferenceID: session.clientReferenceID, metadata: session.metadata)
            let completed = try services.completion.complete(paid, on: connection, now: now)
            if let issued = completed.issued, let email = completed.purchase.purchaserEmail {
                try CodeMail(services: services).queueIssued(issued, purchase: completed.purchase, to: email, on: connection)
            }
            let code = completed.code.status == .revoked ? nil : try CodeRepository.reveal(completed.code, vault: services.vault)
            return Completion(completed: completed, code: code)
        }
        if result.completed.issued != nil { services.mailQueued() }
        return result
    }

    /// The purchase state a paid session stands for.
    static func snapshot(_ session: StripeCheckoutSession, subscription: StripeSubscription?, checkout: CheckoutRecord?, now: Date) -> PurchaseSnapshot? {
        if session.mode == .subscription {
            return subscription?.snapshot(observedAt: now, purchaserEmail: session.email)
        }
        let productID = checkout?.priceID ?? session.metadata["price_id"] ?? "unknown"
        return session.paymentSnapshot(productID: productID, observedAt: now)
    }

    /// Applies a verified event once (deduplicated on its id in the same transaction).
    /// Returns false for a duplicate.
    /// - Throws: `UpstreamError` when Stripe must be read and cannot be (the webhook answers
    ///   503 and Stripe retries).
    func apply(_ event: StripeEvent, now: Date) async throws -> Bool {
        switch event.payload {
        case .checkoutSessionCompleted(let session), .checkoutSessionAsyncPaymentSucceeded(let session):
            guard session.isPaid else {
                return try await record(event, now: now) { _ in }
            }
            if try await isDuplicate(event) { return false }
            _ = try await complete(session, now: now)
            return try await record(event, now: now) { _ in }
        case .subscriptionCreated(let subscription), .subscriptionUpdated(let subscription), .subscriptionDeleted(let subscription):
            let snapshot = subscription.snapshot(observedAt: event.created, purchaserEmail: nil)
            return try await record(event, now: now) { connection in
                _ = try PurchaseRepository.apply(snapshot, on: connection, now: now)
            }
        case .invoicePaid(let invoice):
            guard let subscriptionID = invoice.subscriptionID else { return try await record(event, now: now) { _ in } }
            if try await isDuplicate(event) { return false }
            // The invoice is a hint: the subscription says how long access now lasts.
            let subscription = try await stripe.retrieveSubscription(id: subscriptionID)
            let snapshot = subscription.snapshot(observedAt: now, purchaserEmail: invoice.customerEmail)
            return try await record(event, now: now) { connection in
                let applied = try PurchaseRepository.apply(snapshot, on: connection, now: now)
                if let intent = invoice.paymentIntentID {
                    try PurchaseRepository.addAlias(platform: .stripe, alias: intent, purchaseID: applied.purchase.id, on: connection)
                }
            }
        case .chargeRefunded(let charge):
            return try await record(event, now: now) { connection in
                guard charge.isFullyRefunded else { return }
                let references = [charge.paymentIntentID, charge.invoiceID].compactMap { $0 }
                guard let purchase = try references.lazy.compactMap({ try PurchaseRepository.find(platform: .stripe, reference: $0, on: connection) }).first else {
                    services.logger.warning("stripe_refund_unmatched", [("event_id", .string(event.id))])
                    return
                }
                let refunded = PurchaseSnapshot(
                    platform: .stripe, externalID: purchase.externalID, productID: purchase.productID, status: .refunded,
                    expiresAt: purchase.expiresAt, environment: purchase.environment, observedAt: charge.created ?? event.created)
                _ = try PurchaseRepository.apply(refunded, on: connection, now: now)
            }
        case .unhandled:
            return try await record(event, now: now) { _ in }
        }
    }

    private func isDuplicate(_ event: StripeEvent) async throws -> Bool {
        try await services.database.read { connection in
            try connection.queryOne("SELECT 1 AS seen FROM webhook_events WHERE source = 'stripe' AND event_id = ?", [event.id]) != nil
        }
    }

    /// Runs `effects` and records the event in one transaction; false when it was a duplicate.
    private func record(_ event: StripeEvent, now: Date, _ effects: @escaping @Sendable (Connection) throws -> Void) async throws -> Bool {
        try await services.database.write { connection in
            guard try WebhookEventLog.record(source: "stripe", eventID: event.id, type: event.type, on: connection, now: now) else {
                return false
            }
            try effects(connection)
            return true
        }
    }
}

/// A Stripe object this service cannot turn into a purchase.
enum StripeSyncError: Error, CustomStringConvertible {
    case unusableSession(String)

    var description: String {
        switch self {
        case .unusableSession(let id): "checkout session \(id) has no subscription or payment to record"
        }
    }
}
