import Domain
import Foundation
import Integrations
import Storage

/// The completion's one write, in three steps the success page and the webhook share: what must
/// be asked of Stripe first (`subscription(of:)`), the write in the caller's transaction (the
/// success page's own, or the webhook's that records its event id), and the wake-ups once it
/// committed (`committed`).
extension CompleteCheckout {
    /// What a completion wrote: the state after it, and whether it queued a link-out report.
    struct Written: Sendable {
        let completed: Completed
        let reported: Bool
    }

    /// The subscription a subscription-mode session stands for, expanded in it or read from Stripe.
    /// - Throws: `UseCaseError.notConfigured` without Stripe, `UpstreamError`.
    func subscription(of session: StripeCheckoutSession) async throws -> StripeSubscription? {
        guard session.mode == .subscription, session.subscription == nil, let id = session.subscriptionID else { return session.subscription }
        guard let stripe else { throw UseCaseError.notConfigured("Stripe is not configured on this server: set stripe.secret_key.") }
        return try await stripe.retrieveSubscription(id: id)
    }

    /// Completes `session` in the caller's write transaction (READ COMMITTED is enough: the purchase
    /// is locked before it is read): the checkout's row is read once, the code is emailed when it is
    /// new, and the link-out report of the first payment queued. The code is not decrypted here.
    /// - Throws: `DomainError` (`unusableCheckout`, `notVouched`), `StorageError`, `CryptoError`.
    func write(
        _ session: StripeCheckoutSession, subscription: StripeSubscription?, changedAt: Date?, on connection: Connection, now: Date
    ) throws -> Written {
        let checkout = try CheckoutRepository.find(sessionID: session.id, on: connection)
        guard let snapshot = Self.snapshot(session, subscription: subscription, checkout: checkout, changedAt: changedAt ?? now) else {
            throw DomainError(.unusableCheckout(sessionID: session.id))
        }
        let known = try PurchaseRepository.find(platform: .stripe, reference: snapshot.externalID, on: connection) != nil
        try vouching.require(objectID: session.id, priceID: snapshot.productID, startedHere: checkout != nil, known: known)
        let paid = PaidCheckout(
            sessionID: session.id, snapshot: snapshot,
            aliases: [session.subscriptionID, session.paymentIntentID, session.invoiceID].compactMap { $0 },
            email: session.email, clientReferenceID: session.clientReferenceID, metadata: session.metadata)
        let completed = try completePaid(paid, checkout: checkout, on: connection, now: now)
        // An address typed at Stripe that the mailer would refuse gets no mail (finding 8).
        if let issued = completed.issued, let email = completed.purchase.purchaserEmail, EmailAddressRule.accepts(email) {
            try codeMail.queueIssued(issued, purchase: completed.purchase, to: email, on: connection)
        }
        let reported = try StripeLinkOutReports.checkoutPaid(
            session, subscription: subscription, purchase: completed.purchase, paidAt: changedAt ?? now, on: connection, now: now)
        return Written(completed: completed, reported: reported)
    }

    /// After the write committed: wakes the mail worker for a new code, the report worker for a report.
    func committed(_ written: Written) {
        if written.completed.issued != nil { codeMail.queued() }
        if written.reported { linkOutQueued() }
    }
}
