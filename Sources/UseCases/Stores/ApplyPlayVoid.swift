import Domain
import Foundation
import Storage

/// The one place a Google Play voided purchase (refund, chargeback, revocation) is applied, from
/// an RTDN `voidedPurchaseNotification` or a `voidedpurchases.list` entry alike.
///
/// - A full void ends access: the purchase becomes `refunded` (a `purchase.updated` event),
///   stamped at the void's time, or at the stored state's time when that is later, so that an
///   older stamp cannot lose to the repository's ordering.
/// - A quantity-based partial refund (`refundType` 2) changes nothing.
/// - A void is final (`keepingVoid`): no later reading of the same purchase token brings the
///   paid time it refunded back. Only a period paid after it (a later expiry) grants again.
/// - A void of a token that another one has since replaced (`linkedPurchaseToken`) refunds the
///   old order only; the purchase now held under the new token keeps its access.
public struct ApplyPlayVoid: Sendable {
    /// `refundType` of a quantity-based partial refund (`REFUND_TYPE_QUANTITY_BASED_PARTIAL_REFUND`).
    public static let partialRefund = 2

    let events: EventQueue

    /// A void applier that reports what it changes on `events`.
    public init(events: EventQueue = .disabled) {
        self.events = events
    }

    /// Applies the void of `purchaseToken` inside the caller's write transaction.
    /// - Parameters:
    ///   - orderID: the voided order (kept as the change's transaction id).
    ///   - voidedAt: when Google says it was voided (RTDN `eventTimeMillis`, list `voidedTimeMillis`).
    ///   - refundType: the RTDN's `refundType`; nil (a list entry) is a full void.
    /// - Returns: what was applied; nil when Tollgate has no such purchase, it is refunded already,
    ///   the token was replaced by another, or the refund is partial.
    /// - Throws: `StorageError`, `DomainError`, `CryptoError` (events).
    public func apply(
        purchaseToken: String, orderID: String?, voidedAt: Date, refundType: Int?, now: Date, on connection: Connection
    ) throws -> PurchaseRepository.Applied? {
        guard refundType != Self.partialRefund,
            let purchase = try PurchaseRepository.find(platform: .playStore, reference: purchaseToken, on: connection),
            purchase.externalID == purchaseToken, purchase.status != .refunded
        else { return nil }
        let refunded = PurchaseSnapshot(
            platform: .playStore, externalID: purchase.externalID, productID: purchase.productID, status: .refunded,
            expiresAt: purchase.expiresAt, environment: purchase.environment, observedAt: max(voidedAt, purchase.observedAt),
            transactionID: orderID)
        let applied = try PurchaseRepository.apply(refunded, on: connection, now: now)
        try events.purchaseApplied(applied, on: connection, now: now)
        return applied
    }

    /// `snapshot` as it may be stored given a void: a Play purchase stored `refunded` under the
    /// same token stays `refunded`, unless the snapshot grants a period that ends after the stored
    /// one (a renewal paid after the void). Every other snapshot is returned unchanged.
    /// - Throws: `StorageError`, `DomainError`.
    public static func keepingVoid(_ snapshot: PurchaseSnapshot, on connection: Connection) throws -> PurchaseSnapshot {
        guard snapshot.platform == .playStore,
            let stored = try PurchaseRepository.find(platform: .playStore, reference: snapshot.externalID, on: connection),
            stored.externalID == snapshot.externalID, stored.status == .refunded
        else { return snapshot }
        if snapshot.status.grantsAccess, let expiry = snapshot.expiresAt, let refundedUntil = stored.expiresAt, expiry > refundedUntil {
            return snapshot
        }
        var kept = snapshot
        kept.status = .refunded
        return kept
    }
}
