import Foundation
import Storage

/// The latest App Store receipt of each App Store subscription, kept sealed
/// (`AppStoreReceiptVault`) where verifyReceipt is the only way to ask Apple (no App Store Server
/// API key, e.g. GoNative with the shared secret alone): the reconciler verifies it again when the
/// subscription's period ends without news, so a missed renewal or ending is caught. A newer
/// receipt replaces the kept one; the row goes with its purchase's personal data.
public enum AppStoreReceiptRepository {
    /// Keeps `receipt` as the latest of `purchaseID`, replacing an older one.
    /// - Throws: `StorageError`, `CryptoError`.
    public static func keep(_ receipt: String, purchaseID: String, vault: AppStoreReceiptVault, on connection: Connection, now: Date) throws {
        try connection.execute(
            """
            INSERT INTO app_store_receipts (purchase_id, receipt_sealed, receipt_key_id, updated_at) VALUES (?, ?, ?, ?)
            ON CONFLICT (purchase_id) DO UPDATE SET receipt_sealed = excluded.receipt_sealed, receipt_key_id = excluded.receipt_key_id,
                updated_at = excluded.updated_at
            """,
            [purchaseID, try vault.seal(receipt, purchaseID: purchaseID), vault.keyID, Timestamp.milliseconds(now)])
    }

    /// The latest receipt kept for `purchaseID`, opened; nil when none is kept.
    /// - Throws: `StorageError`, `CryptoError` (a box that does not open under this key).
    public static func receipt(purchaseID: String, vault: AppStoreReceiptVault, on connection: Connection) throws -> String? {
        guard let row = try connection.queryOne("SELECT receipt_sealed FROM app_store_receipts WHERE purchase_id = ?", [purchaseID]) else {
            return nil
        }
        return try vault.open(try row.blob("receipt_sealed"), purchaseID: purchaseID)
    }

    /// Forgets the receipts of `purchaseIDs` (an account's deletion).
    /// - Throws: `StorageError`.
    public static func forget(purchaseIDs: [String], on connection: Connection) throws {
        for id in purchaseIDs { try connection.execute("DELETE FROM app_store_receipts WHERE purchase_id = ?", [id]) }
    }
}
