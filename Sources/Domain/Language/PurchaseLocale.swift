import Storage

/// The language of the buyer behind an account or an address: the newest purchase's that
/// has one (kept from its checkout). Mails not about one purchase (sign-in, confirmation, set
/// password) are written in it.
public enum PurchaseLocale {
    /// The language kept with purchase `purchaseID` (from its checkout); nil when it has none.
    /// - Throws: `StorageError`.
    public static func of(purchaseID: String, on connection: Connection) throws -> String? {
        try connection.queryOne("SELECT locale FROM purchases WHERE id = ?", [purchaseID]).flatMap { try $0.optionalString("locale") }
    }

    /// The newest language among the purchases of `accountID` or made with `email`; nil when
    /// none has one.
    /// - Throws: `StorageError`.
    public static func latest(accountID: String?, email: String?, on connection: Connection) throws -> String? {
        guard accountID != nil || email != nil else { return nil }
        return try connection.queryOne(
            """
            SELECT locale FROM purchases
            WHERE locale IS NOT NULL AND (account_id = ? OR purchaser_email = ?)
            ORDER BY created_at DESC, id DESC LIMIT 1
            """,
            [accountID, email?.lowercased()]
        ).flatMap { try $0.optionalString("locale") }
    }
}
