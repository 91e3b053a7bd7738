import Foundation
import Storage

/// Whether a purchase's reminder may leave now (decided when the mail leaves the outbox, and by
/// the worker before it queues one): never once the purchase is linked to an app user or
/// account by any path, refunded, ended or revoked, its account deleted, its code revoked, or
/// its reminders unsubscribed.
public enum ReminderEligibility {
    /// Why a reminder does not leave.
    public enum Stop: String, Sendable, Equatable {
        case unknown, linked, ended, erased, revoked, unsubscribed, noAddress = "no_address"
    }

    /// Nil when the reminder may leave; else why not.
    /// - Throws: `StorageError`.
    public static func check(purchaseID: String, on connection: Connection, now: Date) throws -> Stop? {
        guard let purchase = try PurchaseRepository.find(id: purchaseID, on: connection) else { return .unknown }
        if try connection.queryOne("SELECT erased_at FROM purchases WHERE id = ?", [purchaseID])?.optionalInt64("erased_at") != nil {
            return .erased
        }
        if purchase.accountID != nil || purchase.appUserID.map({ !$0.isEmpty }) == true { return .linked }
        if let journey = try connection.queryOne("SELECT linked_at FROM buyer_journeys WHERE purchase_id = ?", [purchaseID]),
            try journey.optionalInt64("linked_at") != nil
        {
            return .linked
        }
        if !purchase.isEntitled(at: now) { return .ended }
        guard purchase.purchaserEmail != nil else { return .noAddress }
        if let code = try CodeRepository.latest(purchaseID: purchaseID, on: connection) {
            if code.status == .revoked { return .revoked }
            if code.status == .redeemed || code.redeemedAt != nil { return .linked }
        }
        if try BuyerJourneyRepository.unsubscribed(purchaseID: purchaseID, on: connection) { return .unsubscribed }
        return nil
    }
}
