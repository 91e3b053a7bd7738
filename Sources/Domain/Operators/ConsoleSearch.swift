import Foundation
import Storage

/// Finds buyers by whatever support is handed: an email (any case), a code in any spelling the
/// redeem API accepts, an app user id, an account id, a purchase id, a Stripe id (`cs_`, `sub_`,
/// `cus_`, `pi_`, `ch_`, `in_`), an App Store original transaction id, a Play order id or
/// purchase token. Every lookup is by an index (docs/BENCHMARKS.md has the plans).
public enum ConsoleSearch {
    /// One buyer found: an account, or a purchase no account holds yet.
    public struct Hit: Sendable, Equatable {
        /// What the buyer page is keyed by: the account's id, or the purchase's when no account holds it.
        public let buyerID: String
        public let accountID: String?
        public let purchaseID: String?
        public let email: String?
        /// What matched (`email`, `code`, `app_user_id`, `account_id`, `purchase`, `stripe_customer`, ...).
        public let matched: String
        public let createdAt: Date
    }

    /// At most `limit` hits for `query`, newest first.
    public static func find(_ query: String, codeKey: CodeKey?, limit: Int, on connection: Connection) throws -> [Hit] {
        let text = query.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty, text.utf8.count <= 512 else { return [] }
        var hits: [Hit] = []
        var seen = Set<String>()
        func add(_ hit: Hit) {
            if seen.insert(hit.buyerID).inserted { hits.append(hit) }
        }
        func addPurchase(_ purchase: Purchase, matched: String) throws {
            if let accountID = purchase.accountID, let account = try AccountRepository.find(id: accountID, on: connection) {
                add(
                    Hit(
                        buyerID: account.id, accountID: account.id, purchaseID: purchase.id, email: account.email ?? purchase.purchaserEmail,
                        matched: matched, createdAt: purchase.createdAt))
            } else {
                add(
                    Hit(
                        buyerID: purchase.id, accountID: nil, purchaseID: purchase.id, email: purchase.purchaserEmail, matched: matched,
                        createdAt: purchase.createdAt))
            }
        }
        if text.contains("@") {
            let email = text.lowercased()
            // The address a buyer writes from may be one their account asked for and never confirmed.
            for account in try connection.query(
                """
                SELECT id, COALESCE(email, requested_email) AS shown, created_at FROM accounts
                WHERE (email = ? OR requested_email = ?) AND deleted_at IS NULL ORDER BY created_at DESC LIMIT ?
                """, [email, email, limit])
            {
                add(
                    Hit(
                        buyerID: try account.string("id"), accountID: try account.string("id"), purchaseID: nil,
                        email: try account.optionalString("shown"),
                        matched: "email", createdAt: Timestamp.date(try account.int64("created_at"))))
            }
            for row in try connection.query(
                "SELECT \(Purchase.columns) FROM purchases WHERE purchaser_email = ? ORDER BY created_at DESC LIMIT ?", [email, limit])
            {
                try addPurchase(try Purchase(row: row), matched: "email")
            }
            return Array(hits.prefix(limit))
        }
        if let codeKey, let record = try CodeRepository.find(key: codeKey, on: connection),
            let purchase = try PurchaseRepository.find(id: record.purchaseID, on: connection)
        {
            try addPurchase(purchase, matched: "code")
        }
        if let account = try AccountRepository.find(id: text, on: connection) {
            add(
                Hit(
                    buyerID: account.id, accountID: account.id, purchaseID: nil, email: account.email, matched: "account_id",
                    createdAt: account.createdAt))
        }
        if let account = try AccountRepository.find(appUserID: text, on: connection) {
            add(
                Hit(
                    buyerID: account.id, accountID: account.id, purchaseID: nil, email: account.email, matched: "app_user_id",
                    createdAt: account.createdAt))
        }
        if let purchase = try PurchaseRepository.find(id: text, on: connection) { try addPurchase(purchase, matched: "purchase") }
        for row in try connection.query(
            "SELECT \(Purchase.columns) FROM purchases WHERE external_id = ? ORDER BY created_at DESC LIMIT ?", [text, limit])
        {
            let purchase = try Purchase(row: row)
            try addPurchase(purchase, matched: purchase.platform.rawValue)
        }
        for row in try connection.query("SELECT purchase_id FROM purchase_aliases WHERE alias = ? LIMIT ?", [text, limit]) {
            if let purchase = try PurchaseRepository.find(id: try row.string("purchase_id"), on: connection) {
                try addPurchase(purchase, matched: purchase.platform.rawValue)
            }
        }
        if text.hasPrefix("cs_") {
            for row in try connection.query("SELECT purchase_id FROM checkouts WHERE session_id = ? AND purchase_id IS NOT NULL", [text]) {
                if let purchase = try PurchaseRepository.find(id: try row.string("purchase_id"), on: connection) {
                    try addPurchase(purchase, matched: "stripe_checkout")
                }
            }
        }
        if text.hasPrefix("cus_") {
            for row in try connection.query(
                "SELECT \(Purchase.columns) FROM purchases WHERE customer_id = ? ORDER BY created_at DESC LIMIT ?", [text, limit])
            {
                try addPurchase(try Purchase(row: row), matched: "stripe_customer")
            }
        }
        for row in try connection.query(
            "SELECT \(Purchase.columns) FROM purchases WHERE app_user_id = ? ORDER BY created_at DESC LIMIT ?", [text, limit])
        {
            try addPurchase(try Purchase(row: row), matched: "app_user_id")
        }
        return Array(hits.prefix(limit))
    }
}
