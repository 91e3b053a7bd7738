import Storage

extension AccountFormation.Facts {
    /// The account's row, the purchases it holds, its members and whether it has a grant, in one
    /// query (one round trip on PostgreSQL); each row names what it is in `kind`.
    private static let factsQuery = """
        SELECT 'account' AS kind, password_hash AS name, NULL AS detail, NULL AS customer_id, email_verified AS flag,
            password_generated AS second_flag, deleted_at
        FROM accounts WHERE id = ?
        UNION ALL SELECT 'purchase', id, platform, customer_id, linked_without_proof, NULL, NULL FROM purchases WHERE account_id = ?
        UNION ALL SELECT 'member', app_user_id, joined_through_purchase_id, NULL, NULL, NULL, NULL FROM app_users WHERE account_id = ?
        UNION ALL SELECT 'grant', NULL, NULL, NULL, NULL, NULL, NULL
        FROM (SELECT 1 AS one FROM manual_entitlements WHERE account_id = ? LIMIT 1) AS grants
        """

    /// The facts of `accountID`, read in one place.
    /// - Throws: `StorageError`, `DomainError(.notFound)`.
    public static func read(accountID: String, on connection: Connection) throws -> AccountFormation.Facts {
        var account: Row?
        var purchases: [HeldPurchase] = []
        var members: [Member] = []
        var hasManualGrant = false
        for row in try connection.query(factsQuery, [accountID, accountID, accountID, accountID]) {
            switch try row.string("kind") {
            case "account":
                account = row
            case "purchase":
                purchases.append(
                    HeldPurchase(
                        id: try row.string("name"), platform: Platform(rawValue: try row.string("detail")) ?? .stripe,
                        customerID: try row.optionalString("customer_id"), linkedWithoutProof: try row.optionalInt("flag") == 1))
            case "member":
                members.append(Member(appUserID: try row.string("name"), joinedThroughPurchaseID: try row.optionalString("detail")))
            default:
                hasManualGrant = true
            }
        }
        guard let account else { throw DomainError(.notFound, "no account \(accountID)") }
        return AccountFormation.Facts(
            purchases: purchases, members: members, hasConfirmedAddress: try account.optionalBool("flag") == true,
            hasChosenPassword: try account.optionalString("name") != nil && account.optionalInt("second_flag") != 1,
            isDeleted: try account.optionalInt64("deleted_at") != nil, hasManualGrant: hasManualGrant)
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
