import Crypto
import Domain
import Foundation
import Integrations
import Storage

/// Turns a paid Stripe Checkout Session into a purchase, a link to the app user who started
/// it, exactly one code and one email — from the success page or the webhook, whichever comes
/// first (the single database writer makes the second a no-op). It owns the completion and its
/// transaction (`CompleteCheckout+Paid.swift`): the webhook runs the same write inside the one
/// that records its event id (`ApplyStripeEvent`).
public struct CompleteCheckout: Sendable {
    /// The state after a checkout completed.
    public struct Completion: Sendable {
        public let completed: Completed
        /// The newest code, readable again (nil when it was revoked).
        public let code: RedemptionCode?
    }

    let database: Database
    /// Nil when Stripe is not configured: only checkouts completed before can be shown.
    let stripe: StripeClient?
    /// How long a new code stays redeemable (`redemption.code_ttl_seconds`).
    let codeTTL: TimeInterval
    let vault: CodeVault
    /// For the account a checkout started by a new app user creates.
    let secrets: DomainSecrets
    /// Where the new purchase, account and code are reported.
    let events: EventQueue
    /// When the buyer of an unredeemed purchase is reminded (`redemption.reminders`).
    let reminders: ReminderSchedule
    let codeMail: CodeMail
    let vouching: StripeVouching
    /// Redirect mode: where the success page sends the buyer instead of showing the code.
    let redirects: CheckoutRedirects
    /// Called after a commit that queued a link-out report (wakes the report worker).
    let linkOutQueued: @Sendable () -> Void

    public init(
        database: Database, stripe: StripeClient?, codeTTL: TimeInterval, vault: CodeVault, secrets: DomainSecrets,
        events: EventQueue = .disabled, reminders: ReminderSchedule = .off, codeMail: CodeMail, vouching: StripeVouching,
        redirects: CheckoutRedirects = CheckoutRedirects(), linkOutQueued: @escaping @Sendable () -> Void = {}
    ) {
        self.redirects = redirects
        self.linkOutQueued = linkOutQueued
        self.database = database
        self.stripe = stripe
        self.codeTTL = codeTTL
        self.vault = vault
        self.secrets = secrets
        self.events = events
        self.reminders = reminders
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
        let subscription = try await subscription(of: session)
        // READ COMMITTED: `write` locks the purchase before reading it.
        let written = try await database.write(isolation: .readCommitted) { [self] connection in
            try write(session, subscription: subscription, changedAt: changedAt, on: connection, now: now)
        }
        committed(written)
        let code = written.completed.code
        return Completion(completed: written.completed, code: code.status == .revoked ? nil : try CodeRepository.reveal(code, vault: vault))
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
        let vault = self.vault
        let known = try await database.read { connection -> Completion? in
            guard let checkout = try CheckoutRepository.find(sessionID: sessionID, on: connection), let purchaseID = checkout.purchaseID,
                let purchase = try PurchaseRepository.find(id: purchaseID, on: connection),
                let code = try CodeRepository.latest(purchaseID: purchaseID, on: connection)
            else { return nil }
            let revealed = code.status == .revoked ? nil : try CodeRepository.reveal(code, vault: vault)
            return Completion(
                completed: Completed(purchase: purchase, checkout: checkout, issued: nil, code: code, linkedAccount: nil),
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
    static func snapshot(_ session: StripeCheckoutSession, subscription: StripeSubscription?, checkout: CheckoutRecord?, changedAt: Date)
        -> PurchaseSnapshot?
    {
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
