import Storage

/// Which account a link or 6-digit code mailed to an address opens (API.md "Who may act for an
/// account", Addresses): the account that confirmed the address; else the one account that holds
/// web purchases paid with it and nothing else (no confirmed address, no password, no app user
/// bound to a secret, no purchase linked without proof), which then confirms it; else a new
/// account, made when the link or code is used. An address set on an account but never confirmed
/// opens nothing, and a purchase linked without proof never makes its account reachable through
/// its address. The one rule for web sign-in links and codes and for the app's `email_code`.
public enum AddressSignInTarget: Sendable, Equatable {
    /// The account that confirmed the address.
    case confirmed(accountID: String)
    /// The one account holding web purchases paid with the address and nothing else; using the
    /// link or code confirms the address on it.
    case webBuyer(accountID: String)
    /// No account can be opened by the address: a new one, made when the link or code is used,
    /// with the address confirmed.
    case newAccount

    /// The account opened, nil for a new one.
    public var accountID: String? {
        switch self {
        case .confirmed(let id), .webBuyer(let id): id
        case .newAccount: nil
        }
    }

    /// An account holding web purchases paid with the address, as the rule sees it.
    public struct Candidate: Sendable, Equatable {
        public let accountID: String
        /// Every purchase it holds is a web purchase paid with the address.
        public let holdsOnlyWebPurchasesPaidWithAddress: Bool
        public let hasConfirmedAddress: Bool
        /// A password somebody chose (a generated one does not count).
        public let hasChosenPassword: Bool
        /// One of its app users has an install secret bound.
        public let hasBoundSecret: Bool
        /// One of its purchases was linked by a caller that proved nothing.
        public let hasPurchaseLinkedWithoutProof: Bool
        public let isDeleted: Bool

        public init(
            accountID: String, holdsOnlyWebPurchasesPaidWithAddress: Bool, hasConfirmedAddress: Bool, hasChosenPassword: Bool,
            hasBoundSecret: Bool, hasPurchaseLinkedWithoutProof: Bool, isDeleted: Bool
        ) {
            self.accountID = accountID
            self.holdsOnlyWebPurchasesPaidWithAddress = holdsOnlyWebPurchasesPaidWithAddress
            self.hasConfirmedAddress = hasConfirmedAddress
            self.hasChosenPassword = hasChosenPassword
            self.hasBoundSecret = hasBoundSecret
            self.hasPurchaseLinkedWithoutProof = hasPurchaseLinkedWithoutProof
            self.isDeleted = isDeleted
        }

        /// Holds the address's web purchases and nothing else.
        var holdsNothingElse: Bool {
            holdsOnlyWebPurchasesPaidWithAddress && !hasConfirmedAddress && !hasChosenPassword && !hasBoundSecret
                && !hasPurchaseLinkedWithoutProof && !isDeleted
        }
    }

    /// The pure rule.
    /// - Parameters:
    ///   - confirmedBy: the live account that confirmed the address, if any.
    ///   - candidates: the accounts holding web purchases paid with the address (each once).
    public static func decide(confirmedBy: String?, candidates: [Candidate]) -> AddressSignInTarget {
        if let confirmedBy { return .confirmed(accountID: confirmedBy) }
        guard candidates.count == 1, let only = candidates.first, only.holdsNothingElse else { return .newAccount }
        return .webBuyer(accountID: only.accountID)
    }

    /// The target for `email` from what the database says now.
    /// - Throws: `StorageError`.
    public static func resolve(email: String, on connection: Connection) throws -> AddressSignInTarget {
        let email = email.lowercased()
        let confirmed = try connection.queryOne(
            "SELECT id FROM accounts WHERE email = ? AND email_verified = 1 AND deleted_at IS NULL", [email])?.string("id")
        if let confirmed { return .confirmed(accountID: confirmed) }
        let holders = try connection.query(
            """
            SELECT DISTINCT account_id FROM purchases
            WHERE purchaser_email = ? AND platform = 'stripe' AND account_id IS NOT NULL ORDER BY account_id
            """,
            [email]
        ).map { try $0.string("account_id") }
        return decide(confirmedBy: nil, candidates: try holders.map { try candidate($0, email: email, on: connection) })
    }

    static func candidate(_ accountID: String, email: String, on connection: Connection) throws -> Candidate {
        let account = try connection.queryOne(
            "SELECT email_verified, password_hash, password_generated, deleted_at FROM accounts WHERE id = ?", [accountID])
        let purchases = try connection.query(
            "SELECT platform, purchaser_email, linked_without_proof FROM purchases WHERE account_id = ?", [accountID])
        let onlyWeb = try purchases.allSatisfy { try $0.string("platform") == "stripe" && $0.optionalString("purchaser_email") == email }
        let withoutProof = try purchases.contains { try $0.optionalInt("linked_without_proof") == 1 }
        return Candidate(
            accountID: accountID, holdsOnlyWebPurchasesPaidWithAddress: onlyWeb,
            hasConfirmedAddress: try account?.bool("email_verified") ?? false,
            hasChosenPassword: try account.map { try $0.optionalString("password_hash") != nil && $0.optionalInt("password_generated") != 1 }
                ?? false,
            hasBoundSecret: try AppUserSecretRepository.anyBound(accountID: accountID, on: connection),
            hasPurchaseLinkedWithoutProof: withoutProof, isDeleted: try account?.optionalInt64("deleted_at") != nil || account == nil)
    }
}
