import Storage

extension AccountFormation.Facts {
    /// What the account's own row says toward "formed by": read with the other facts
    /// (`read(accountID:on:)`), or by a caller that selected the row already (`Names.selectList`).
    public struct OwnRow: Sendable, Equatable {
        public let hasConfirmedAddress: Bool
        /// A password somebody set (a generated one, seed 004's, does not count).
        public let hasChosenPassword: Bool
        public let isDeleted: Bool

        /// The names a query gives the row's four columns.
        public struct Names: Sendable {
            let verified, password, generated, deleted: String

            /// `email_verified`, `password_hash`, `password_generated` and `deleted_at` of
            /// `accounts` aliased `alias`, named `prefix` + the column.
            public init(alias: String, prefix: String) {
                (verified, password, generated, deleted) = (
                    prefix + "email_verified", prefix + "password_hash", prefix + "password_generated", prefix + "deleted_at"
                )
                selectList = [
                    "\(alias).email_verified AS \(verified)", "\(alias).password_hash AS \(password)",
                    "\(alias).password_generated AS \(generated)", "\(alias).deleted_at AS \(deleted)"
                ].joined(separator: ", ")
            }

            /// The select list giving the names.
            public let selectList: String
        }

        /// Reads the columns named `names`.
        public init(row: Row, names: Names) throws {
            hasConfirmedAddress = try row.optionalBool(names.verified) == true
            hasChosenPassword = try row.optionalString(names.password) != nil && row.optionalInt(names.generated) != 1
            isDeleted = try row.optionalInt64(names.deleted) != nil
        }
    }

    /// The purchases the account holds, its members and whether it has a grant, in one query
    /// (one round trip on PostgreSQL); each row names what it is in `kind`. The last columns are
    /// the account row's (`factsQuery`).
    private static let heldQuery = """
        SELECT 'purchase' AS kind, id AS name, platform AS detail, customer_id, linked_without_proof AS flag,
            NULL AS own_email_verified, NULL AS own_password_hash, NULL AS own_password_generated, NULL AS own_deleted_at
        FROM purchases WHERE account_id = ?
        UNION ALL SELECT 'member', app_user_id, joined_through_purchase_id, NULL, NULL, NULL, NULL, NULL, NULL FROM app_users WHERE account_id = ?
        UNION ALL SELECT 'grant', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
        FROM (SELECT 1 AS one FROM manual_entitlements WHERE account_id = ? LIMIT 1) AS grants
        """

    private static let ownNames = OwnRow.Names(alias: "accounts", prefix: "own_")

    /// The account's own row, then `heldQuery`'s.
    private static let factsQuery = """
        SELECT 'account' AS kind, NULL AS name, NULL AS detail, NULL AS customer_id, NULL AS flag, \(ownNames.selectList)
        FROM accounts WHERE id = ?
        UNION ALL \(heldQuery)
        """

    /// The facts of `accountID`, read in one place.
    /// - Throws: `StorageError`, `DomainError(.notFound)`.
    public static func read(accountID: String, on connection: Connection) throws -> AccountFormation.Facts {
        var ownRow: OwnRow?
        let facts = try read(factsQuery, [accountID, accountID, accountID, accountID], on: connection) { row in
            ownRow = try OwnRow(row: row, names: ownNames)
        }
        guard let ownRow else { throw DomainError(.notFound, "no account \(accountID)") }
        return facts.with(ownRow)
    }

    /// The facts of `accountID`, whose own row the caller read in this transaction.
    /// - Throws: `StorageError`.
    public static func read(accountID: String, ownRow: OwnRow, on connection: Connection) throws -> AccountFormation.Facts {
        try read(heldQuery, [accountID, accountID, accountID], on: connection) { _ in }.with(ownRow)
    }

    /// The held purchases, members and grant of `query`'s rows; `account` gets the 'account' row.
    private static func read(
        _ query: String, _ arguments: [any SQLBindable], on connection: Connection, account: (Row) throws -> Void
    ) throws -> AccountFormation.Facts {
        var facts = AccountFormation.Facts(purchases: [], members: [], hasConfirmedAddress: false, hasChosenPassword: false, isDeleted: false)
        for row in try connection.query(query, arguments) {
            switch try row.string("kind") {
            case "account":
                try account(row)
            case "purchase":
                facts.purchases.append(
                    HeldPurchase(
                        id: try row.string("name"), platform: Platform(rawValue: try row.string("detail")) ?? .stripe,
                        customerID: try row.optionalString("customer_id"), linkedWithoutProof: try row.optionalInt("flag") == 1))
            case "member":
                facts.members.append(Member(appUserID: try row.string("name"), joinedThroughPurchaseID: try row.optionalString("detail")))
            default:
                facts.hasManualGrant = true
            }
        }
        return facts
    }

    /// These facts with the account's own row's.
    private func with(_ ownRow: OwnRow) -> AccountFormation.Facts {
        var facts = self
        facts.hasConfirmedAddress = ownRow.hasConfirmedAddress
        facts.hasChosenPassword = ownRow.hasChosenPassword
        facts.isDeleted = ownRow.isDeleted
        return facts
    }
}

extension AccountFormation {
    /// Whether `accountID` was formed by `purchase` ("Formed by"), from what the database says now.
    /// - Throws: `StorageError`, `DomainError(.notFound)`.
    public static func isFormed(accountID: String, by purchase: Purchase, on connection: Connection) throws -> Bool {
        isFormed(by: purchase, facts: try Facts.read(accountID: accountID, on: connection))
    }

    /// `isFormed(accountID:by:on:)` for an account whose own row the caller read in this transaction.
    /// - Throws: `StorageError`.
    public static func isFormed(accountID: String, ownRow: Facts.OwnRow, by purchase: Purchase, on connection: Connection) throws -> Bool {
        isFormed(by: purchase, facts: try Facts.read(accountID: accountID, ownRow: ownRow, on: connection))
    }

    private static func isFormed(by purchase: Purchase, facts: Facts) -> Bool {
        let held = Facts.HeldPurchase(id: purchase.id, platform: purchase.platform, customerID: purchase.customerID, linkedWithoutProof: false)
        return isFormed(by: held, facts: facts)
    }
}
