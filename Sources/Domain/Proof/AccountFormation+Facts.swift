import Storage

extension AccountFormation.Facts {
    /// The facts of `accountID`, read in one place.
    /// - Throws: `StorageError`, `DomainError(.notFound)`.
    public static func read(accountID: String, on connection: Connection) throws -> AccountFormation.Facts {
        guard
            let account = try connection.queryOne(
                "SELECT email_verified, password_hash, password_generated, deleted_at FROM accounts WHERE id = ?", [accountID])
        else { throw DomainError(.notFound, "no account \(accountID)") }
        let purchases = try connection.query(
            "SELECT id, platform, customer_id, linked_without_proof FROM purchases WHERE account_id = ?", [accountID]
        ).map { row in
            AccountFormation.Facts.HeldPurchase(
                id: try row.string("id"), platform: Platform(rawValue: try row.string("platform")) ?? .stripe,
                customerID: try row.optionalString("customer_id"), linkedWithoutProof: try row.optionalInt("linked_without_proof") == 1)
        }
        let members = try connection.query(
            "SELECT app_user_id, joined_through_purchase_id FROM app_users WHERE account_id = ?", [accountID]
        ).map { row in
            AccountFormation.Facts.Member(
                appUserID: try row.string("app_user_id"), joinedThroughPurchaseID: try row.optionalString("joined_through_purchase_id"))
        }
        return AccountFormation.Facts(
            purchases: purchases, members: members, hasConfirmedAddress: try account.bool("email_verified"),
            hasChosenPassword: try account.optionalString("password_hash") != nil && account.optionalInt("password_generated") != 1,
            isDeleted: try account.optionalInt64("deleted_at") != nil,
            hasManualGrant: try connection.queryOne("SELECT 1 AS one FROM manual_entitlements WHERE account_id = ? LIMIT 1", [accountID]) != nil)
    }
}

extension AccountFormation {
    /// Whether `accountID` was formed by `purchase` ("Formed by"), from what the database says now.
    /// - Throws: `StorageError`, `DomainError(.notFound)`.
    public static func isFormed(accountID: String, by purchase: Purchase, on connection: Connection) throws -> Bool {
        let facts = try Facts.read(accountID: accountID, on: connection)
        let held = Facts.HeldPurchase(id: purchase.id, platform: purchase.platform, customerID: purchase.customerID, linkedWithoutProof: false)
        return isFormed(by: held, facts: facts)
    }
}
