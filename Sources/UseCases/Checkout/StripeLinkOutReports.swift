import Domain
import Foundation
import Integrations
import Storage

/// What Stripe's objects say about a payment or a refund, handed to `LinkOutReporting` inside the
/// transaction that records the purchase change (API.md "Link-out compliance"). A purchase whose
/// checkout carried no link-out token queues nothing.
enum StripeLinkOutReports {
    /// The first payment of a completed checkout: the session's invoice (a subscription) or
    /// payment intent (a one-time payment), with the session's amounts; a subscription's period
    /// is the subscription's current one.
    /// - Returns: whether a report was queued.
    /// - Throws: `StorageError`, `DomainError(.corrupt)`.
    @discardableResult
    static func checkoutPaid(
        _ session: StripeCheckoutSession, subscription: StripeSubscription?, purchase: Purchase, paidAt: Date, on connection: Connection, now: Date
    ) throws -> Bool {
        guard let reference = session.invoiceID ?? session.paymentIntentID else { return false }
        let isSubscription = session.mode == .subscription
        let payment = LinkOutReporting.Payment(
            reference: reference, paidAt: paidAt, amountTotal: session.amountTotal, tax: session.amountTax, currency: session.currency,
            periodStart: isSubscription ? subscription?.currentPeriodStart ?? paidAt : nil,
            periodEnd: isSubscription ? subscription?.currentPeriodEnd : nil)
        return try LinkOutReporting.paid(purchase, payment, subscription: isSubscription, on: connection, now: now)
    }

    /// A renewal paid by `invoice` (`invoice.paid`): its total and the tax in it, its lines'
    /// period. The invoice that opened the subscription (`subscription_create`) is the
    /// checkout's first payment, reported when the checkout completed, never as a renewal.
    /// - Returns: whether a report was queued.
    /// - Throws: `StorageError`, `DomainError(.corrupt)`.
    @discardableResult
    static func invoicePaid(
        _ invoice: StripeInvoice, subscription: StripeSubscription, purchase: Purchase, paidAt: Date, on connection: Connection, now: Date
    ) throws -> Bool {
        guard invoice.billingReason != "subscription_create" else { return false }
        let tax = invoice.total.flatMap { total in invoice.totalExcludingTax.map { total - $0 } }
        let payment = LinkOutReporting.Payment(
            reference: invoice.id, paidAt: paidAt, amountTotal: invoice.total, tax: tax, currency: invoice.currency,
            periodStart: invoice.periodStart ?? subscription.currentPeriodStart, periodEnd: invoice.periodEnd ?? subscription.currentPeriodEnd)
        return try LinkOutReporting.paid(purchase, payment, subscription: true, on: connection, now: now)
    }

    /// Money given back for the payment one of `references` names (a charge's payment intent or
    /// invoice): `refundedTotal` is all refunded of it so far (Stripe's cumulative
    /// `amount_refunded`; nil: all of it, as a lost chargeback).
    /// - Returns: whether a report was queued (false: no token, the payment was never reported,
    ///   or nothing more was refunded).
    /// - Throws: `StorageError`, `DomainError(.corrupt)`.
    @discardableResult
    static func refunded(
        _ purchase: Purchase, references: [String], refundedTotal: Int?, refundedAt: Date, on connection: Connection, now: Date
    ) throws -> Bool {
        var candidates = references
        // A purchase paid once (a one-time payment, a subscription not renewed yet) has one payment
        // to refund, whichever of its ids the charge names.
        if try LinkOutReportStore.paymentLines(purchaseID: purchase.id, on: connection).count == 1,
            let first = try LinkOutReportStore.firstPayment(purchaseID: purchase.id, on: connection)
        {
            candidates.append(String(first.naturalKey.dropFirst(LinkOutReporting.paymentKey(purchase.id, "").count)))
        }
        for reference in candidates {
            guard let paid = try LinkOutReportStore.lines(naturalKey: LinkOutReporting.paymentKey(purchase.id, reference), on: connection)?.first
            else { continue }
            return try LinkOutReporting.refunded(
                purchase, payment: reference, refundedAt: refundedAt, refundedTotal: refundedTotal,
                subscription: paid.productType == .subscription, on: connection, now: now)
        }
        return false
    }
}
