import Foundation
import Storage

/// App users that hold one purchase's entitlements without joining its account (API.md
/// "Redemption": under `switch`, a code redeemed by another app user when the purchase's account
/// was not formed by that purchase). A guest keeps them until the code is revoked, the purchase
/// ends or the account signs its device out; its secret proves nothing about that account.
public enum PurchaseGuestRepository {
    /// Records `appUserID` as a guest of `purchaseID` held by `holderAccountID` on `deviceID`.
    /// - Throws: `StorageError`.
    public static func add(
        purchaseID: String, appUserID: String, holderAccountID: String, deviceID: String, codeID: String, on connection: Connection, now: Date
    ) throws {
        try connection.execute(
            """
            INSERT INTO purchase_guests (purchase_id, app_user_id, holder_account_id, device_id, code_id, created_at)
            VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (purchase_id, app_user_id) DO UPDATE SET holder_account_id = excluded.holder_account_id,
                device_id = excluded.device_id, code_id = excluded.code_id
            """,
            [purchaseID, appUserID, holderAccountID, deviceID, codeID, Timestamp.milliseconds(now)])
    }

    /// The purchases `appUserID` holds as a guest now: its code not revoked, its device on the
    /// holder's account not signed out, the purchase still held by that account.
    /// - Throws: `StorageError`.
    public static func purchases(appUserID: String, on connection: Connection) throws -> [Purchase] {
        try connection.query(
            """
            SELECT \(Purchase.columns(qualifiedBy: "p")) FROM purchase_guests g
            JOIN purchases p ON p.id = g.purchase_id AND p.account_id = g.holder_account_id
            JOIN redemption_codes c ON c.id = g.code_id AND c.status <> 'revoked'
            JOIN devices d ON d.account_id = g.holder_account_id AND d.device_id = g.device_id AND d.signed_out_at IS NULL
            WHERE g.app_user_id = ?
            """,
            [appUserID]
        ).map(Purchase.init(row:))
    }

    /// Whether `appUserID` is a live guest of `purchaseID`.
    /// - Throws: `StorageError`.
    public static func isGuest(appUserID: String, purchaseID: String, on connection: Connection) throws -> Bool {
        try purchases(appUserID: appUserID, on: connection).contains { $0.id == purchaseID }
    }
}
