import Domain
import Foundation
import Integrations
import Storage

extension ApplyAppleNotification {
    /// `EXTERNAL_PURCHASE_TOKEN` / `UNREPORTED`: Apple has no report of a token (about 10 days
    /// after it was made). A token Tollgate keeps that has no report yet is queued as one that
    /// led to nothing; one with reports queued is already on its way. Inside the notification's
    /// transaction.
    /// - Returns: whether a report was queued.
    /// - Throws: `StorageError`, `DomainError(.corrupt)`.
    static func reportUnreportedToken(_ notification: AppStoreNotification, on connection: Connection, now: Date) throws -> Bool {
        guard notification.notificationType == "EXTERNAL_PURCHASE_TOKEN", notification.subtype == "UNREPORTED",
            let externalID = notification.externalPurchaseToken?.externalPurchaseID,
            let token = try LinkOutTokenRepository.find(reporting: .apple, externalID: externalID, on: connection)
        else { return false }
        return try LinkOutReporting.unpurchased(token, on: connection, now: now)
    }
}
