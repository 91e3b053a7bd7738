import Crypto
import Foundation
import Storage

/// What Apple and Google are owed when a purchase made under a link-out token is paid, renewed
/// or refunded (API.md "Link-out compliance"). Each call runs inside the write transaction that
/// records the change and queues one report (`LinkOutReportStore`), once per payment and per
/// refunded amount: a purchase whose checkout carried no token queues nothing.
///
/// Line ids are Tollgate's own (`lineID(_:)`): derived from the purchase id and the payment, so
/// the same payment always gets the same id, and nothing personal is in them. For Google the
/// line id is also the report's `request_id` (its `externalTransactionId`); for Apple each
/// report gets a UUID `requestIdentifier`.
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

    /// A line id: `lo_` and the first 32 hex digits of SHA-256 over `parts` joined by `:`
    /// (1–63 characters of `a-z0-9_`, as both platforms accept).
    public static func lineID(_ parts: String...) -> String {
        let digest = (try? SHA256.hash(Array(parts.joined(separator: ":").utf8))) ?? []
        return "lo_" + Hex.encode(Array(digest.prefix(16)))
    }

    /// The natural key of the report of the purchase's payment `reference` (`LinkOutReportStore`).
    public static func paymentKey(_ purchaseID: String, _ reference: String) -> String { "payment:\(purchaseID):\(reference)" }

    /// Queues the report of a payment: the first one of the purchase (`purchase`), or a renewal
    /// (with the days of paid service before it, from the periods reported so far).
    /// - Returns: whether a report was queued (false: no token, or already queued).
    /// - Throws: `StorageError`, `DomainError(.corrupt)`.
    @discardableResult
    public static func paid(
        _ purchase: Purchase, _ payment: Payment, subscription: Bool, on connection: Connection, now: Date
    ) throws -> Bool {
        guard let token = try LinkOutTokenRepository.find(purchaseID: purchase.id, on: connection) else { return false }
        let earlier = try LinkOutReportStore.paymentLines(purchaseID: purchase.id, on: connection)
        let first = earlier.isEmpty
        var paidDays: Int?
        if !first, subscription {
            paidDays = earlier.reduce(0) { days, line in
                guard let start = line.periodStart, let end = line.periodEnd else { return days }
                return days + Int((end.timeIntervalSince(start) / 86_400).rounded())
            }
        }
        let line = LinkOutReportLine(
            kind: first ? .purchase : .renewal, lineID: lineID(purchase.id, payment.reference), productID: purchase.productID,
            productType: subscription ? .subscription : .oneTime, occurredAt: payment.paidAt,
            amountMinor: payment.amountTotal.map { $0 - (payment.tax ?? 0) }, taxMinor: payment.tax, currency: payment.currency,
            periodStart: payment.periodStart, periodEnd: payment.periodEnd, paidDaysBefore: paidDays)
        return try LinkOutReportStore.enqueue(
            token: token, kind: first ? .purchase : .renewal, naturalKey: paymentKey(purchase.id, payment.reference), purchaseID: purchase.id,
            lines: [line], requestID: token.reporting == .google ? line.lineID : nil, on: connection, now: now)
    }

    /// Queues the report of a refund of the payment `reference`. `refundedTotal` is all that went
    /// back for that payment so far, tax included (Stripe's `amount_refunded`; nil: all of it);
    /// the line reports what this refund adds, split into amount and tax in the payment's
    /// proportion, and what is left of the payment's pre-tax amount. Each refunded total is
    /// reported once.
    /// - Returns: whether a report was queued (false: no token, nothing new refunded, or the
    ///   payment was never reported).
    /// - Throws: `StorageError`, `DomainError(.corrupt)`.
    @discardableResult
    public static func refunded(
        _ purchase: Purchase, payment reference: String, refundedAt: Date, refundedTotal: Int?, subscription: Bool,
        on connection: Connection, now: Date
    ) throws -> Bool {
        guard let token = try LinkOutTokenRepository.find(purchaseID: purchase.id, on: connection),
            let paid = try LinkOutReportStore.lines(naturalKey: paymentKey(purchase.id, reference), on: connection)?.first
        else { return false }
        let paidPretax = paid.amountMinor ?? 0
        let paidTotal = paidPretax + (paid.taxMinor ?? 0)
        let total = min(refundedTotal ?? paidTotal, paidTotal)
        let before = try LinkOutReportStore.refundLines(purchaseID: purchase.id, on: connection)
            .filter { $0.referenceLineID == paid.lineID }.reduce(0) { $0 + ($1.amountMinor ?? 0) + ($1.taxMinor ?? 0) }
        let amount = total - before
        guard amount > 0 else { return false }
        // The pre-tax part of a refunded total, rounded down; each refund's part is the difference
        // of two totals, so the parts of all refunds add up to the payment's pre-tax amount.
        func pretaxPart(_ refunded: Int) -> Int { paidTotal > 0 ? Int(Int64(refunded) * Int64(paidPretax) / Int64(paidTotal)) : refunded }
        let refundedPretax = pretaxPart(total)
        let pretax = refundedPretax - pretaxPart(before)
        let line = LinkOutReportLine(
            kind: .refund, lineID: lineID(purchase.id, reference, "refund", String(total)), referenceLineID: paid.lineID,
            productID: purchase.productID, productType: subscription ? .subscription : .oneTime, occurredAt: refundedAt,
            amountMinor: pretax, taxMinor: amount - pretax, currency: paid.currency, remainingPreTaxMinor: max(0, paidPretax - refundedPretax))
        return try LinkOutReportStore.enqueue(
            token: token, kind: .refund, naturalKey: "refund:\(purchase.id):\(reference):\(total)", purchaseID: purchase.id, lines: [line],
            requestID: token.reporting == .google ? line.lineID : nil, on: connection, now: now)
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

    /// Queues the report of an Apple token Tollgate never kept (`UNRECOGNIZED_TOKEN`), once per
    /// `externalPurchaseId`; returns whether it did.
    /// - Throws: `StorageError`, `CryptoError`, `DomainError(.corrupt)`.
    @discardableResult
    public static func unrecognized(externalID: String, vault: LinkOutTokenVault, on connection: Connection, now: Date) throws -> Bool {
        let token = try LinkOutTokenRepository.recordUnrecognized(externalID: externalID, vault: vault, on: connection, now: now)
        return try LinkOutReportStore.enqueue(
            token: token, kind: .unrecognized, naturalKey: "unrecognized:\(externalID)", purchaseID: nil, lines: [], on: connection, now: now)
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
