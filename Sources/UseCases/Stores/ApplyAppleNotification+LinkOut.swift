import Domain
import Foundation
import Integrations
import Storage

extension ApplyAppleNotification {
    /// `EXTERNAL_PURCHASE_TOKEN` / `UNREPORTED`: Apple has no report of a token (about 10 days
    /// after it was made). A token Tollgate keeps that has no report yet is queued as one that
    /// led to nothing; one with reports queued is already on its way. A token Tollgate never kept
    /// is queued as `UNRECOGNIZED_TOKEN` (Apple: report it "including when your system doesn't
    /// have a record of the token"). Inside the notification's transaction.
    /// - Returns: whether a report was queued.
    /// - Throws: `StorageError`, `CryptoError`, `DomainError(.corrupt)`.
    static func reportUnreportedToken(
        _ notification: AppStoreNotification, vault: LinkOutTokenVault?, on connection: Connection, now: Date
    ) throws -> Bool {
        guard notification.notificationType == "EXTERNAL_PURCHASE_TOKEN", notification.subtype == "UNREPORTED",
            let externalID = notification.externalPurchaseToken?.externalPurchaseID
        else { return false }
        if let token = try LinkOutTokenRepository.find(reporting: .apple, externalID: externalID, on: connection) {
            return try LinkOutReporting.unpurchased(token, on: connection, now: now)
        }
        guard let vault, !externalID.isEmpty, externalID.utf8.count <= ExternalPurchaseReport.maximumExternalPurchaseIDLength,
            externalID.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
        else { return false }
        return try LinkOutReporting.unrecognized(externalID: externalID, vault: vault, on: connection, now: now)
    }
}
