import Crypto
import Domain
import Foundation
import Integrations
import Storage

/// Turns a paid Stripe Checkout Session into a purchase, a link to the app user who started
/// it, exactly one code and one email — from the success page or the webhook, whichever comes
/// first (the single database writer makes the second a no-op).
public struct CompleteCheckout: Sendable {
    /// The state after a checkout completed.
    public struct Completion: Sendable {
        public let completed: CheckoutCompletion.Completed
        /// The newest code, readable again (nil when it was revoked).
        public let code: RedemptionCode?
    }

    let database: Database
    /// Nil when Stripe is not configured: only checkouts completed before can be shown.
    let stripe: StripeClient?
    let completion: CheckoutCompletion
    let codeMail: CodeMail
    let vouching: StripeVouching
    /// Redirect mode: where the success page sends the buyer instead of showing the code.
    let redirects: CheckoutRedirects
    /// Called after a commit that queued a link-out report (wakes the report worker).
    let linkOutQueued: @Sendable () -> Void

    public init(
        database: Database, stripe: StripeClient?, completion: CheckoutCompletion, codeMail: CodeMail, vouching: StripeVouching,
        redirects: CheckoutRedirects = CheckoutRedirects(), linkOutQueued: @escaping @Sendable () -> Void = {}
    ) {
        self.redirects = redirects
        self.linkOutQueued = linkOutQueued
        self.database = database
        self.stripe = stripe
        self.completion = completion
        self.codeMail = codeMail
        self.vouching = vouching
    }

    /// Completes a paid session in one transaction, which also queues the link-out report of its
    /// first payment when the checkout carried a platform token. `session` must carry its subscription
    /// (expanded or fetched) in subscription mode. `changedAt` is when the provider says the
    /// checkout completed (a webhook event's `created`); nil when read from Stripe now (the
    /// success page), whose state is as of `now`.
    /// - Throws: `UpstreamError` when Stripe cannot be reached for the subscription,
    ///   `DomainError` (reason `unusableCheckout`) for a session that cannot become a purchase,
    ///   `DomainError` (reason `notVouched`) for one this deployment did not start and whose price it does
    ///   not offer, `StorageError`.
    public func complete(_ session: StripeCheckoutSession, changedAt: Date? = nil, now: Date) async throws -> Completion {
        var fetched = session.subscription
        if session.mode == .subscription, fetched == nil, let id = session.subscriptionID {
            guard let stripe else { throw UseCaseError.notConfigured("Stripe is not configured on this server: set stripe.secret_key.") }
            fetched = try await stripe.retrieveSubscription(id: id)
        }
        let subscription = fetched
        let completion = self.completion
        let codeMail = self.codeMail
        let vouching = self.vouching
        // READ COMMITTED: `CheckoutCompletion.complete` locks the purchase before reading it.
        let (result, reported) = try await database.write(isolation: .readCommitted) { connection -> (Completion, Bool) in
            let checkout = try CheckoutRepository.find(sessionID: session.id, on: connection)
            guard let snapshot = Self.snapshot(session, subscription: subscription, checkout: checkout, changedAt: changedAt ?? now) else {
                throw DomainError(.unusableCheckout(sessionID: session.id))
            }
            let known = try PurchaseRepository.find(platform: .stripe, reference: snapshot.externalID, on: connection) != nil
            try vouching.require(objectID: session.id, priceID: snapshot.productID, startedHere: checkout != nil, known: known)
            let paid = CheckoutCompletion.PaidCheckout(
                sessionID: session.id, snapshot: snapshot,
                aliases: [session.subscriptionID, session.paymentIntentID, session.invoiceID].compactMap { $0 },
                email: session.email, clientReferenceID: session.clientReferenceID, metadata: session.metadata)
            let completed = try completion.complete(paid, on: connection, now: now)
            // An address typed at Stripe that the mailer would refuse gets no mail (finding 8).
            if let issued = completed.issued, let email = completed.purchase.purchaserEmail, EmailAddressRule.accepts(email) {
                try codeMail.queueIssued(issued, purchase: completed.purchase, to: email, on: connection)
            }
            let reported = try StripeLinkOutReports.checkoutPaid(
                session, subscription: subscription, purchase: completed.purchase, paidAt: changedAt ?? now, on: connection, now: now)
            let code = completed.code.status == .revoked ? nil : try CodeRepository.reveal(completed.code, vault: completion.vault)
            return (Completion(completed: completed, code: code), reported)
        }
        if result.completed.issued != nil { codeMail.queued() }
        if reported { linkOutQueued() }
        return result
    }

    /// What the browser lands on after paying, known already or read from Stripe: refresh-safe,
    /// and the same code whichever of webhook and browser came first.
    public enum Landing: Sendable {
        case paid(Completion)
        /// Paid, in redirect mode: the configured URL to send the buyer to, the purchase in its query.
        case redirect(String)
        /// Not paid (yet); `expired` when the session can no longer be paid.
        case unpaid(expired: Bool)
    }

    /// The success page's state for `sessionID`, completing the checkout when Stripe says it
    /// was paid and the webhook has not arrived yet.
    /// - Throws: `UseCaseError` (`not_found` for a session Stripe does not know or that cannot
    ///   become a purchase, `upstream_unavailable` when Stripe cannot be reached, `not_configured`
    ///   in redirect mode without a redirect URL), `StorageError`.
    public func landing(sessionID: String, now: Date) async throws -> Landing {
        let landing = try await paidOrNot(sessionID: sessionID, now: now)
        if case .paid(let completion) = landing {
            await recordSuccessSeen(purchaseID: completion.completed.purchase.id, now: now)
            if let url = try redirects.url(for: completion) { return .redirect(url) }
        }
        return landing
    }

    /// The funnel's "success page seen": the first time this page (or its redirect) is served.
    /// A refresh only reads. Best effort: a failure to record never costs the buyer the page.
    private func recordSuccessSeen(purchaseID: String, now: Date) async {
        guard let seen = try? await database.read({ try BuyerJourneyRepository.successSeen(purchaseID: purchaseID, on: $0) }), !seen else {
            return
        }
        _ = try? await database.write { try BuyerJourneyRepository.markSuccessSeen(purchaseID: purchaseID, on: $0, now: now) }
    }

    private func paidOrNot(sessionID: String, now: Date) async throws -> Landing {
        let vault = completion.vault
        let known = try await database.read { connection -> Completion? in
            guard let checkout = try CheckoutRepository.find(sessionID: sessionID, on: connection), let purchaseID = checkout.purchaseID,
                let purchase = try PurchaseRepository.find(id: purchaseID, on: connection),
                let code = try CodeRepository.latest(purchaseID: purchaseID, on: connection)
            else { return nil }
            let revealed = code.status == .revoked ? nil : try CodeRepository.reveal(code, vault: vault)
            return Completion(
                completed: CheckoutCompletion.Completed(purchase: purchase, checkout: checkout, issued: nil, code: code, linkedAccount: nil),
                code: revealed)
        }
        if let known { return .paid(known) }
        let unknown = UseCaseError.notFound("We do not know this checkout. If you paid, check your email for your code.")
        guard let stripe else { throw UseCaseError.notConfigured("Checkout is not set up on this server yet.") }
        let session: StripeCheckoutSession
        do {
            session = try await stripe.retrieveCheckoutSession(id: sessionID, expandSubscription: true)
        } catch StripeError.api(let error) where error.isResourceMissing {
            throw unknown
        } catch StripeError.request {
            throw unknown
        } catch is UpstreamError {
            throw UseCaseError.upstreamUnavailable("We could not confirm your payment with Stripe just now. Refresh this page in a minute.")
        }
        guard session.isPaid else { return .unpaid(expired: session.status == .expired) }
        do {
            return .paid(try await complete(session, now: now))
        } catch let error as DomainError where error.dropsStripeObject {
            throw unknown
        } catch is UpstreamError {
            throw UseCaseError.upstreamUnavailable("We could not confirm your payment with Stripe just now. Refresh this page in a minute.")
        }
    }

    /// The purchase state a paid session stands for, as of `changedAt`; nil when it stands for
    /// none (setup mode, a subscription session without its subscription).
    static func snapshot(_ session: StripeCheckoutSession, subscription: StripeSubscription?, checkout: CheckoutRecord?, changedAt: Date) -> PurchaseSnapshot? {
        switch session.mode {
        case .subscription:
            return subscription?.snapshot(observedAt: changedAt, purchaserEmail: session.email)
        case .payment:
            let productID = checkout?.priceID ?? session.metadata["price_id"] ?? "unknown"
            return session.paymentSnapshot(productID: productID, observedAt: changedAt)
        default:
            return nil
        }
    }
}
