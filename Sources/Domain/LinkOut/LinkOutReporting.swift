import Foundation
import Storage

/// What Apple and Google are owed when a purchase made under a link-out token is paid, renewed
/// or refunded (API.md "Link-out compliance"). Each call runs inside the write transaction that
/// records the change and queues one report (`LinkOutReportStore`), once per payment: a purchase
/// whose checkout carried no token, or whose programme reports nowhere, queues nothing.
public enum LinkOutReporting {
    /// A payment as the payment processor told it.
    public struct Payment: Sendable, Equatable {
        /// The Stripe invoice (subscriptions) or payment intent (one-time) that was paid.
        public var reference: String
        public var paidAt: Date
        /// What the buyer paid, tax included, in the currency's minor unit; nil when unknown.
        public var amountTotal: Int?
        /// The tax in `amountTotal`; nil when unknown.
        public var tax: Int?
        public var currency: String?
        public var periodStart: Date?
        public var periodEnd: Date?

        public init(
            reference: String, paidAt: Date, amountTotal: Int?, tax: Int?, currency: String?, periodStart: Date? = nil, periodEnd: Date? = nil
        ) {
            self.reference = reference
            self.paidAt = paidAt
            self.amountTotal = amountTotal
            self.tax = tax
            self.currency = currency
            self.periodStart = periodStart
            self.periodEnd = periodEnd
        }
    }

    /// The id of the line reporting `payment` of `purchaseID`: Tollgate's ids only.
    public static func lineID(purchaseID: String, payment reference: String) -> String { "\(purchaseID).\(reference)" }

    /// Queues the report of a payment: the first one of the purchase (`purchase`), or a renewal.
    /// - Returns: whether a report was queued (false: no token, or already queued).
    /// - Throws: `StorageError`, `DomainError(.corrupt)`.
    @discardableResult
    public static func paid(
        _ purchase: Purchase, _ payment: Payment, subscription: Bool, on connection: Connection, now: Date
    ) throws -> Bool {
        guard let token = try LinkOutTokenRepository.find(purchaseID: purchase.id, on: connection) else { return false }
        let first = try LinkOutReportStore.firstPayment(purchaseID: purchase.id, on: connection) == nil
        let pretax = payment.amountTotal.map { $0 - (payment.tax ?? 0) }
        let line = LinkOutReportLine(
            kind: first ? .purchase : .renewal, lineID: lineID(purchaseID: purchase.id, payment: payment.reference),
            productID: purchase.productID, productType: subscription ? .subscription : .oneTime, occurredAt: payment.paidAt,
            amountMinor: pretax, taxMinor: payment.tax, currency: payment.currency, periodStart: payment.periodStart, periodEnd: payment.periodEnd)
        return try LinkOutReportStore.enqueue(
            token: token, kind: first ? .purchase : .renewal, naturalKey: "payment:\(purchase.id):\(payment.reference)", purchaseID: purchase.id,
            lines: [line], on: connection, now: now)
    }

    /// Queues the report of a refund of the payment `reference`. `amount` is what went back, tax
    /// included (nil: all of it); the line splits it into amount and tax in the proportion the
    /// payment had, as its report said.
    /// - Returns: whether a report was queued.
    /// - Throws: `StorageError`, `DomainError(.corrupt)`.
    @discardableResult
    public static func refunded(
        _ purchase: Purchase, payment reference: String, refundedAt: Date, amount: Int?, subscription: Bool, on connection: Connection, now: Date
    ) throws -> Bool {
        guard let token = try LinkOutTokenRepository.find(purchaseID: purchase.id, on: connection) else { return false }
        let paid = try LinkOutReportStore.lines(naturalKey: "payment:\(purchase.id):\(reference)", on: connection)?.first
        var pretax = paid?.amountMinor
        var tax = paid?.taxMinor
        if let amount, let paidPretax = paid?.amountMinor {
            let paidTotal = paidPretax + (paid?.taxMinor ?? 0)
            pretax = paidTotal > 0 ? Int((Int64(amount) * Int64(paidPretax)) / Int64(paidTotal)) : amount
            tax = pretax.map { amount - $0 }
        }
        let paidLine = lineID(purchaseID: purchase.id, payment: reference)
        let line = LinkOutReportLine(
            kind: .refund, lineID: paidLine + ".refund", referenceLineID: paidLine, productID: purchase.productID,
            productType: subscription ? .subscription : .oneTime, occurredAt: refundedAt, amountMinor: pretax, taxMinor: tax,
            currency: paid?.currency)
        return try LinkOutReportStore.enqueue(
            token: token, kind: .refund, naturalKey: "refund:\(purchase.id):\(reference)", purchaseID: purchase.id, lines: [line],
            on: connection, now: now)
    }

    /// How long after its creation a token that led to no purchase is reported as such: Apple
    /// asks about an unreported token 10 days after it was made; a buyer may still pay before.
    public static let unpurchasedAfter: TimeInterval = 7 * 86_400

    /// Queues a report without line items for each Apple token made before `before` that no
    /// purchase came of and no report names yet (at most `limit`); returns how many.
    /// - Throws: `StorageError`, `DomainError(.corrupt)`.
    @discardableResult
    public static func queueUnpurchased(before: Date, limit: Int, on connection: Connection, now: Date) throws -> Int {
        let rows = try connection.query(
            """
            SELECT t.id, t.reporting, t.external_id, t.program, t.storefront, t.created_at FROM link_out_tokens t
            WHERE t.reporting = 'apple' AND t.created_at < ?
                AND NOT EXISTS (SELECT 1 FROM link_out_reports r WHERE r.token_id = t.id)
                AND NOT EXISTS (SELECT 1 FROM checkouts c WHERE c.link_out_token_id = t.id AND c.purchase_id IS NOT NULL)
            ORDER BY t.created_at LIMIT ?
            """, [Timestamp.milliseconds(before), limit])
        var queued = 0
        for row in rows {
            let token = try LinkOutTokenRepository.Token(row: row)
            if try unpurchased(token, on: connection, now: now) { queued += 1 }
        }
        return queued
    }

    /// Queues the report of `token` as one that led to no purchase, unless it has one already
    /// (Apple's `EXTERNAL_PURCHASE_TOKEN` / `UNREPORTED` notification asks for it).
    /// - Returns: whether a report was queued.
    /// - Throws: `StorageError`.
    @discardableResult
    public static func unpurchased(_ token: LinkOutTokenRepository.Token, on connection: Connection, now: Date) throws -> Bool {
        guard try !LinkOutReportStore.hasReports(tokenID: token.id, on: connection) else { return false }
        return try LinkOutReportStore.enqueue(
            token: token, kind: .noPurchase, naturalKey: "no_purchase:\(token.id)", purchaseID: nil, lines: [], on: connection, now: now)
    }
}
